/**
 * Writes the sorted SDL (schema/schema.graphql) and the OpenAPI document (schema/openapi.json)
 * from the code. With --check, writes nothing and exits 1 when the committed files differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { sortedSchema, schema } from '../src/graphql';
import { buildOpenApiDocument } from '../src/http/openapi/openapi';

export const SDL_FILE = 'schema/schema.graphql';
export const OPENAPI_FILE = 'schema/openapi.json';

const expected = {
  [SDL_FILE]: `${printSchema(sortedSchema())}\n`,
  [OPENAPI_FILE]: `${JSON.stringify(buildOpenApiDocument(schema), null, 2)}\n`,
};

const check = process.argv.includes('--check');
let drift = false;
for (const [file, text] of Object.entries(expected)) {
  if (!check) {
    writeFileSync(file, text);
    console.log(`wrote ${file}`);
    continue;
  }
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // a missing file is drift too
  }
  if (current !== text) {
    drift = true;
    console.error(`${file} differs from the code: run npm run schema:print and commit it.`);
  }
}
if (drift) process.exit(1);
