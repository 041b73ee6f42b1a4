import { readFileSync } from 'node:fs';
import { ConfigError } from '../../../platform/config.js';
import { TrellisError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { ModelPricesFileSchema } from './model-price.schema.js';
import { toPriceMap } from './price-table.js';

/** Reads TRELLIS_MODEL_PRICES_FILE at start; a file that cannot be read or does not fit the schema stops the start. */
export function loadModelPricesFile(file: string | undefined): ReturnType<typeof toPriceMap> {
  if (!file) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`TRELLIS_MODEL_PRICES_FILE ${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  try {
    return toPriceMap(validateOrThrow(ModelPricesFileSchema, parsed, 'file').prices);
  } catch (error) {
    const issues = error instanceof TrellisError && error.issues ? `: ${JSON.stringify(error.issues)}` : '';
    throw new ConfigError(`TRELLIS_MODEL_PRICES_FILE ${file} is invalid: ${(error as Error).message}${issues}`);
  }
}
