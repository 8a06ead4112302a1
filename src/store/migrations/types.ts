/** The shape of one migration, apart from the list (index.ts) so that no migration imports the list that imports it. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
