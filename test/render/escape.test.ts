/** The one escaping module: untrusted text made inert for each medium it is written to. */
import { describe, expect, it } from 'vitest';
import { dotLabel, fencedLine, htmlCommentText, htmlText, markdownCode, markdownMessage, markdownText, mermaidLabel, terminalText } from '../../src/engine/render/escape.js';

/** What reached a reviewer's screen in the red team's report. */
const HOSTILE = [
  '\u001b]0;owned\u0007', // OSC: sets the terminal's title
  '\u001b[2J', // clears the screen
  '\u001b[1A\u001b[2K', // cursor up, erase the line: hides the line above
  '\u009b31m', // C1 CSI
  '\r', // back to the line's start
  '\u202eevil\u202c', // right-to-left override
  '\u2066x\u2069', // isolates
  '\u200b', // zero-width space
  '\u{e0041}', // a tag character (invisible "A")
].join('');

/** Every character a terminal or a renderer acts on, or that hides or reorders text. */
// eslint-disable-next-line no-control-regex -- the test looks for control characters.
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/u;

describe('terminalText', () => {
  it('shows every control, escape sequence, bidi and invisible character instead of passing it on', () => {
    const shown = terminalText(`Field ${HOSTILE} Analyst`);
    expect(shown).not.toMatch(ACTIVE);
    expect(shown).toBe('Field \\x1b]0;owned\\x07\\x1b[2J\\x1b[1A\\x1b[2K\\x9b31m\\x0d\\u202eevil\\u202c\\u2066x\\u2069\\u200b\\u{e0041} Analyst');
  });

  it('keeps text as it is otherwise: letters of any script, emoji sequences (with their joiner), backslashes', () => {
    const text = 'Ωμέγα 東京 👩‍💻 DOMAIN\\jsmith (owner) "quoted"';
    expect(terminalText(text)).toBe(text);
  });

  it('one line, unless asked to keep the lines of a message; a carriage return is always shown', () => {
    expect(terminalText('a\nb\tc')).toBe('a\\x0ab\\x09c');
    expect(terminalText('a\nb\tc\rd', { lines: true })).toBe('a\nb\tc\\x0dd');
  });
});

describe('markdownText', () => {
  it('no HTML, no comment, no mention or reference, no formatting, one table cell', () => {
    const shown = markdownText('</summary></details><img src=x onerror=alert(1)><!-- @octocat #12 *bold* _em_ [link](x) ~~s~~ `c` a|b\nnext');
    expect(shown).not.toMatch(/[<>]|@octocat|#12|\n/);
    expect(shown).toBe(
      '&lt;/summary&gt;&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;&lt;!-- &#64;octocat &#35;12 \\*bold\\* \\_em\\_ \\[link\\](x) \\~\\~s\\~\\~ \\`c\\` a\\|b\\\\x0anext',
    );
    expect(markdownText(HOSTILE)).not.toMatch(ACTIVE);
  });

  it('an entity written in the text stays text', () => {
    expect(markdownText('&lt;b&gt; &#64;x')).toBe('&amp;lt;b&amp;gt; &amp;&#35;64;x');
  });
});

describe('markdownCode', () => {
  it('a code span no backtick inside can close, safe in a table row', () => {
    expect(markdownCode('role[a]')).toBe('`role[a]`');
    expect(markdownCode('a`b``c')).toBe('```a`b``c```');
    expect(markdownCode('`x`')).toBe('`` `x` ``');
    expect(markdownCode('a|b\n```')).toBe('```` a\\|b\\x0a``` ````');
    expect(markdownCode(HOSTILE)).not.toMatch(ACTIVE);
  });
});

describe('markdownMessage', () => {
  it("portalctl's own quoted commands as code spans, the rest as text; unpaired backticks all text", () => {
    expect(markdownMessage('leaves it (`portalctl state rm role[a_b]` forgets the record).')).toBe('leaves it (`portalctl state rm role[a_b]` forgets the record).');
    expect(markdownMessage('named *x* `a|b` <b>')).toBe('named \\*x\\* `a\\|b` &lt;b&gt;');
    expect(markdownMessage('a name with one ` in it')).toBe('a name with one \\` in it');
    expect(markdownMessage(`\`${HOSTILE}\` ${HOSTILE}`)).not.toMatch(ACTIVE);
  });
});

describe('fencedLine', () => {
  it('can neither end its line nor close the fence', () => {
    expect(fencedLine('name\n```\n<img>')).toBe("name\\x0a'''\\x0a<img>");
    expect(fencedLine('~~~ closes too')).toBe("''' closes too");
    expect(fencedLine(HOSTILE)).not.toMatch(ACTIVE);
  });
});

describe('mermaidLabel', () => {
  it("Mermaid's entity codes for what would end the label, start markup or a markdown string", () => {
    expect(mermaidLabel('a"] --> x["b <b>#1</b> `md` &')).toBe('a#quot;] --#gt; x[#quot;b #lt;b#gt;#35;1#lt;/b#gt; #96;md#96; #38;');
    expect(mermaidLabel('one\n```\ntwo')).toBe('one\\x0a#96;#96;#96;\\x0atwo');
    expect(mermaidLabel(HOSTILE)).not.toMatch(ACTIVE);
  });
});

describe('dotLabel, htmlText, htmlCommentText', () => {
  it('quoted DOT strings, HTML text and comments', () => {
    expect(dotLabel('a"b\\c\nd')).toBe('a\\"b\\\\c\\\\x0ad');
    expect(htmlText(`<b class='x'>"&"</b>`)).toBe('&lt;b class=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/b&gt;');
    expect(htmlCommentText('x --> <script> <!-- y')).toBe('x - -&gt; &lt;script&gt; &lt;!- - y');
    for (const escape of [dotLabel, htmlText, htmlCommentText]) expect(escape(HOSTILE)).not.toMatch(ACTIVE);
  });
});
