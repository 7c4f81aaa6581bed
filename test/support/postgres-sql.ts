/** The suite's PostgreSQL server (global-setup's `postgresUrl`) as tests use it directly: a schema per test, and plain SQL. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export const postgresUrl = (): string => inject('postgresUrl');

/** The server's URL with `?schema=`: portalctl's PostgreSQL store keeps its tables there. */
export function withSchema(schema: string): string {
  const parsed = new URL(postgresUrl());
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}

/** A schema name no other test uses. */
export const uniqueSchema = (prefix = 's'): string => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 12)}`;

/** One statement on a connection of its own (not portalctl's). */
export async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
