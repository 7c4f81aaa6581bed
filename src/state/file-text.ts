/**
 * A state file's bytes kept between the writes of one file store, as blocks of consecutive
 * resource lines, each block encoded once: a write encodes again only the blocks holding
 * addresses it changed and hands the others to the file as they are. Writing a large state at
 * every group commit of an apply otherwise cost the whole text each time (collecting its
 * addresses, joining its lines, encoding them: ~45 ms at 61,500 addresses, two thirds of a
 * 1,000-change apply). The bytes are serializeState's (tested).
 */
import { Buffer } from 'node:buffer';
import { resourceLine, sortedAddresses, stateTextAround, type StateDocument, type StateEntry } from './format.js';

/** Lines per block when blocks are made; a block that grows to twice this is split. */
const BLOCK_LINES = 512;
const LINE_SEPARATOR = Buffer.from(',\n');

interface Block {
  /** Sorted; never empty. */
  addresses: string[];
  /** The block's lines joined, encoded; undefined until asked for after a change. */
  bytes: Buffer | undefined;
}

export class StateFileText {
  private constructor(private blocks: Block[]) {}

  /** The text of `state`, to be kept in step with it by `update`. */
  static of(state: StateDocument): StateFileText {
    const addresses = sortedAddresses(state.resources);
    const blocks: Block[] = [];
    for (let start = 0; start < addresses.length; start += BLOCK_LINES) blocks.push({ addresses: addresses.slice(start, start + BLOCK_LINES), bytes: undefined });
    return new StateFileText(blocks);
  }

  /** A write's changes: the addresses it put (added or changed) and those it removed. */
  update(put: Iterable<string>, removed: Iterable<string>): void {
    for (const address of removed) {
      const { block, index, found } = this.find(address);
      if (!block || !found) continue;
      block.addresses.splice(index, 1);
      block.bytes = undefined;
      // At once: find() reads each block's first address.
      if (block.addresses.length === 0) this.blocks.splice(this.blocks.indexOf(block), 1);
    }
    for (const address of put) {
      const { block, index, found } = this.find(address);
      if (!block) {
        this.blocks.push({ addresses: [address], bytes: undefined });
        continue;
      }
      if (!found) block.addresses.splice(index, 0, address);
      block.bytes = undefined;
      if (block.addresses.length >= 2 * BLOCK_LINES) {
        const at = this.blocks.indexOf(block);
        this.blocks.splice(at + 1, 0, { addresses: block.addresses.splice(BLOCK_LINES), bytes: undefined });
      }
    }
  }

  /** How many addresses the blocks hold. */
  get size(): number {
    let size = 0;
    for (const block of this.blocks) size += block.addresses.length;
    return size;
  }

  /** The file's bytes for `state`, whose addresses these blocks hold. */
  bytes(state: StateDocument): Buffer[] {
    const { before, after } = stateTextAround(state);
    if (this.blocks.length === 0) return [Buffer.from(`${before}{}${after}`)];
    const parts: Buffer[] = [Buffer.from(`${before}{\n`)];
    for (const [index, block] of this.blocks.entries()) {
      if (index > 0) parts.push(LINE_SEPARATOR);
      block.bytes ??= Buffer.from(block.addresses.map((address) => resourceLine(address, entryAt(state, address))).join(',\n'));
      parts.push(block.bytes);
    }
    parts.push(Buffer.from(`\n  }${after}`));
    return parts;
  }

  /** The block where `address` is or belongs (the last whose first address is not after it), and its place there. */
  private find(address: string): { block: Block | undefined; index: number; found: boolean } {
    let low = 0;
    let high = this.blocks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.blocks[middle]?.addresses[0] as string) <= address) low = middle;
      else high = middle - 1;
    }
    const block = this.blocks[low];
    if (!block) return { block, index: 0, found: false };
    let start = 0;
    let end = block.addresses.length;
    while (start < end) {
      const middle = (start + end) >> 1;
      if ((block.addresses[middle] as string) < address) start = middle + 1;
      else end = middle;
    }
    return { block, index: start, found: block.addresses[start] === address };
  }
}

function entryAt(state: StateDocument, address: string): StateEntry {
  const entry = Object.hasOwn(state.resources, address) ? state.resources[address] : undefined;
  // The store keeps the blocks in step with its writes; a block naming an address the state lacks is a bug, never a line to write.
  if (entry === undefined) throw new Error(`internal error: the state file's text names ${address}, which the state does not hold`);
  return entry;
}
