/** "Did you mean": near names only; a short unknown name is not near every other short one. */
import { describe, expect, it } from 'vitest';
import { closestNames, didYouMean } from '../../src/core/suggest.js';

describe('closestNames', () => {
  it('offers names within the edit allowance that share a character, best first', () => {
    expect(closestNames('rols', ['roles', 'groups', 'items'])).toEqual(['roles']);
    // A swapped pair costs two edits: still near.
    expect(closestNames('di', ['id', 'name', 'description'])).toEqual(['id']);
    expect(closestNames('ID', ['id', 'name'])).toEqual(['id']);
  });

  it('offers nothing for a short name sharing no character, though within two edits', () => {
    expect(closestNames('<<', ['id', 'name', 'description'])).toEqual([]);
    expect(closestNames('xy', ['id'])).toEqual([]);
    expect(didYouMean('<<', ['id', 'name', 'description'])).toBe('');
  });

  it('still finds a name by a word of its description', () => {
    expect(closestNames('minSpecial', [{ name: 'minOther', description: 'Minimum of special characters.' }, { name: 'minLength' }])).toEqual(['minOther']);
  });
});
