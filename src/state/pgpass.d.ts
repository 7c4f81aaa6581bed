/** The `pgpass` package (node-postgres's reader of ~/.pgpass and PGPASSFILE) ships no types. */
declare module 'pgpass' {
  interface ConnectionInfo {
    host: string;
    port: string | number;
    database: string;
    user: string;
  }
  /** Calls back with the password of the first matching line of the password file, or undefined. */
  function pgpass(connection: ConnectionInfo, callback: (password: string | undefined) => void): void;
  export = pgpass;
}
