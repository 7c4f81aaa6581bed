/** organization: the portal's rules (checks that refuse a request before anything changes). */
import type { PasswordPolicy } from '../state/model.js';
import { optionalParam, requireParam, type Params } from '../shared/params.js';

export const UPDATE_CATEGORY_SCHEMA_PRIVILEGE = 'portal:admin:updateItemCategorySchema';

export const UPDATE_USERS_PRIVILEGE = 'portal:admin:updateUsers';

/** E8 bounds: [min, max]; `nullable` rules may be sent empty (or "null") to clear them. */
export const POLICY_RULES: { name: keyof PasswordPolicy; min: number; max?: number; nullable: boolean }[] = [
  { name: 'minLength', min: 8, max: 1000, nullable: false },
  { name: 'minUpper', min: 1, nullable: true },
  { name: 'minLower', min: 1, nullable: true },
  { name: 'minLetter', min: 1, nullable: true },
  { name: 'minDigit', min: 1, nullable: true },
  { name: 'minOther', min: 1, nullable: true },
  { name: 'expirationInDays', min: 1, max: 1095, nullable: true },
  { name: 'historySize', min: 1, max: 24, nullable: true },
];

/** The category schema JSON text: the `categorySchema` parameter, or the whole raw body (spec sample). */
export function categorySchemaText(params: Params, rawBody: string | undefined): string {
  const parameter = optionalParam(params, 'categorySchema');
  if (parameter !== undefined) return parameter;
  if (rawBody !== undefined && rawBody.trim() !== '') return rawBody;
  return requireParam(params, 'categorySchema');
}
