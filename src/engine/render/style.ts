/** Colour for terminal renderings, through node:util's styleText; plain text when off. */
import { styleText } from 'node:util';
import type { Mark } from './lines.js';

export type Tone = 'green' | 'red' | 'yellow' | 'dim' | 'bold';
export type Paint = (tone: Tone, text: string) => string;

/** The caller decides (TTY, --no-color, NO_COLOR); the stream is not looked at again here. */
export function painter(color: boolean): Paint {
  return color ? (tone, text) => styleText(tone, text, { validateStream: false }) : (_tone, text) => text;
}

export const MARK_TONE: Record<Mark, Tone | undefined> = { '+': 'green', '-': 'red', '~': 'yellow', '#': 'dim', ' ': undefined };
