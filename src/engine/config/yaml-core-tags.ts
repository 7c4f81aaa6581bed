/**
 * The YAML 1.2 core schema's scalar tags written out (`!!float 1`, `!!int "12"`, `!!bool true`,
 * `!!null ~`), resolved as the core schema says. The `yaml` package resolves an explicit tag only
 * by the regular expression it uses for untagged scalars, and its float's asks for a dot or an
 * exponent: `!!float 1`, a float of the core schema (1.0), was left as text with a warning, and
 * then refused by the schema as text. A text its tag's type has no form for (`!!int 1.5`,
 * `!!bool yes`) is an error at the tag, not a warning beside the schema's own refusal of the text.
 * Tags as written apply whatever the scalar's style (`!!float "1"` is 1). Untagged scalars are
 * not touched: these tags are no defaults, so only an explicit tag finds them.
 */
import type { ScalarTag, Tags } from 'yaml';

const core = 'tag:yaml.org,2002:';

/** The core schema's forms of each type (YAML 1.2.2, 10.3.2), and what a scalar of that form is. */
const forms: { name: string; what: string; written: string; read(text: string): unknown }[] = [
  {
    name: 'null',
    what: 'null',
    written: 'null is written null, ~ or nothing',
    read: (text) => (/^(?:null|Null|NULL|~|)$/.test(text) ? null : undefined),
  },
  {
    name: 'bool',
    what: 'a boolean',
    written: 'a boolean is written true or false',
    read: (text) => (/^(?:true|True|TRUE)$/.test(text) ? true : /^(?:false|False|FALSE)$/.test(text) ? false : undefined),
  },
  {
    name: 'int',
    what: 'an integer',
    written: 'an integer is written like 12, -3, 0o17 or 0x1F',
    read: (text) => {
      if (/^[-+]?[0-9]+$/.test(text)) return parseInt(text, 10);
      if (/^0o[0-7]+$/.test(text)) return parseInt(text.slice(2), 8);
      if (/^0x[0-9a-fA-F]+$/.test(text)) return parseInt(text.slice(2), 16);
      return undefined;
    },
  },
  {
    name: 'float',
    what: 'a number',
    written: 'a number is written like 1, -2.5, 1e3, .inf or .nan',
    read: (text) => {
      if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)) return parseFloat(text);
      if (/^[-+]?\.(?:inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
      if (/^\.(?:nan|NaN|NAN)$/.test(text)) return NaN;
      return undefined;
    },
  },
];

const explicitCoreTags: ScalarTag[] = forms.map(({ name, what, written, read }) => ({
  tag: `${core}${name}`,
  default: false,
  resolve(text: string, onError: (message: string) => void): unknown {
    const value = read(text);
    if (value === undefined) {
      onError(`${JSON.stringify(text)} is not ${what}, which its tag !!${name} says it is (in YAML 1.2, ${written}).`);
      return text;
    }
    return value;
  },
}));

/**
 * The `yaml` package's `customTags`: these tags before the schema's own (which still resolve
 * untagged scalars). A document that declares `%YAML 1.1` keeps that schema's tags alone (its
 * `!!bool yes`, `!!int 0b101`): its schema is the one that holds `!!binary`.
 */
export function withExplicitCoreTags(tags: Tags): Tags {
  const yaml11 = tags.some((tag) => typeof tag === 'object' && tag.tag === `${core}binary`);
  return yaml11 ? tags : [...explicitCoreTags, ...tags];
}
