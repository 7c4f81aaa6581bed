/**
 * Names instead of ids, as data for a kind file (README "Names instead of ids"): a container's
 * entries named by fields of the list the kind reads anyway. The engine resolves the names.
 */
import type { JsonObject } from '../../core/json.js';
import type { LiveReader } from '../../core/request.js';
import type { NameCandidate, NameField, NameLookup } from './contract.js';
import { textOf } from './discover.js';

export interface ListNames {
  container: string;
  noun: string;
  fields: readonly NameField[];
  /** The list the kind reads (the same path, so the plan's reader serves it once). */
  path(reader: LiveReader, parent: Readonly<Record<string, string>>): Promise<string> | string;
  itemsField: string;
  /** A list entry's id; default its `id`. */
  idOf?(entry: JsonObject): string | undefined;
}

/** A lookup over a paged list: each entry's id and its name fields (texts; a missing one is not matched). */
export function namesFromList(spec: ListNames): NameLookup {
  return {
    container: spec.container,
    noun: spec.noun,
    fields: spec.fields,
    async candidates(reader, parent) {
      const entries = (await reader.list(await spec.path(reader, parent), spec.itemsField)) ?? [];
      return entries.flatMap((entry): NameCandidate[] => {
        const id = spec.idOf ? spec.idOf(entry) : textOf(entry['id']);
        if (id === undefined) return [];
        const fields: Record<string, string> = {};
        for (const field of spec.fields) {
          const value = textOf(entry[field.name]);
          if (value !== undefined) fields[field.name] = value;
        }
        return [{ id, fields }];
      });
    },
  };
}

export const nameField = (name: string, description: string, required = true): NameField => ({ name, required, description });
