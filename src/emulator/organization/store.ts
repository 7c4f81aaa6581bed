/** organization: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import type { PasswordPolicy } from '../model.js';
import { badRequest, checkRange, optionalParam, parseInteger, type Params } from '../routes/params.js';
import { POLICY_RULES } from './rules.js';

export function updatePolicy(policy: PasswordPolicy, params: Params): void {
  for (const rule of POLICY_RULES) {
    const text = optionalParam(params, rule.name);
    if (text === undefined) continue;
    if (text.trim() === '' || text.trim() === 'null') {
      if (!rule.nullable) {
        throw badRequest(`Invalid value for '${rule.name}': it cannot be empty.`, 'EMU_0004', [
          `'${rule.name}' must be between ${rule.min} and ${rule.max ?? rule.min}.`,
        ]);
      }
      delete policy[rule.name];
      continue;
    }
    policy[rule.name] = checkRange(rule.name, parseInteger(rule.name, text), rule.min, rule.max);
  }
}
