/**
 * The Chromium that the HTML report test draws in: CHROMIUM_PATH when set (the GitHub workflow's Chrome),
 * otherwise the headless shell that the npm package @sparticuz/chromium carries brotli-compressed, so that
 * `npm ci` alone brings a browser and nothing is downloaded.
 *
 * The package's own unpacker writes one /tmp/chromium of mode 0700 and keeps it, whichever user or version
 * wrote it first; and under vitest the temporary directory is the run's own (test/global-setup.ts), so
 * anything unpacked there is unpacked anew at every run. This unpacks the binary once per installed
 * version into node_modules/.cache (which `npm ci` clears with the rest), runnable by every user who can
 * read the checkout, and renames it into place only once whole, so that no run launches a half-written one.
 */
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';

const PACKAGE = '@sparticuz/chromium';

export async function chromiumExecutable(): Promise<string> {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!existsSync(given)) throw new Error(`CHROMIUM_PATH is ${given}, which does not exist.`);
    return given;
  }
  const binary = await unpackedChromium();
  requireSharedLibraries(binary);
  return binary;
}

async function unpackedChromium(): Promise<string> {
  // The package's own folder, not its entry point's: where the entry sits inside it differs by version.
  const root = fileURLToPath(new URL(`../node_modules/${PACKAGE}`, import.meta.url));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const folder = fileURLToPath(
    new URL(`../node_modules/.cache/sparticuz-chromium-${version}`, import.meta.url),
  );
  const binary = join(folder, 'chromium');
  if (existsSync(binary)) return binary;
  mkdirSync(folder, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  await pipeline(
    createReadStream(join(root, 'bin', 'chromium.br')),
    createBrotliDecompress(),
    createWriteStream(partial, { mode: 0o755 }),
  );
  renameSync(partial, binary);
  return binary;
}

/** The package's binary links a few system libraries (NSS); name every one the loader would not find. */
function requireSharedLibraries(binary: string): void {
  const missing = execFileSync('ldd', [binary], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('=> not found'))
    .map((line) => line.trim().split(' ')[0]);
  if (missing.length > 0)
    throw new Error(
      `${PACKAGE}'s Chromium (${binary}) needs shared libraries this machine lacks: ${missing.join(', ')} ` +
        '(on Debian: apt-get install -y libnss3 libexpat1), or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
}
