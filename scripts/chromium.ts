/**
 * The Chromium that the HTML report test draws in: CHROMIUM_PATH when set (the GitHub workflow's Chrome),
 * otherwise the headless shell that the npm package @sparticuz/chromium carries brotli-compressed, so that
 * `npm ci` alone brings a browser and nothing is downloaded. Either way it draws text with the fonts the
 * package ships (Open Sans) beside the machine's own: on a machine with no fonts at all a page's text draws
 * nothing, and its tables collapse to their borders.
 *
 * The package's own unpacker writes one /tmp/chromium of mode 0700 and keeps it, whichever user or version
 * wrote it first; and under vitest the temporary directory is the run's own (test/global-setup.ts), so
 * anything unpacked there is unpacked anew at every run. This unpacks the binary and the fonts once per
 * installed version into node_modules/.cache (which `npm ci` clears with the rest), usable by every user who
 * can read the checkout, and renames each into place only once whole, so that no run uses a half-written one.
 * `launchChromium` is the one way the scripts and tests start it: headless, offline, in a throwaway profile.
 */
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, createBrotliDecompress } from 'node:zlib';
import { type BrowserContext, chromium } from 'playwright-core';

const PACKAGE = '@sparticuz/chromium';
// The package's own folder, not its entry point's: where the entry sits inside it differs by version.
const PACKAGE_ROOT = fileURLToPath(new URL(`../node_modules/${PACKAGE}`, import.meta.url));
/** fontconfig's defaults when no FONTCONFIG_FILE is given; included, so that no system font is lost. */
const SYSTEM_FONT_CONFIG = '/etc/fonts/fonts.conf';

/** What playwright's launch needs to start the browser: its binary and the environment it runs in. */
interface ChromiumLaunch {
  executablePath: string;
  env: Record<string, string | undefined>;
}

async function chromiumLaunch(): Promise<ChromiumLaunch> {
  const cache = versionCache();
  return {
    executablePath: await chromiumExecutable(cache),
    env: { ...process.env, FONTCONFIG_FILE: packagedFontConfig(cache) },
  };
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A started browser and how to stop it: `close` also removes its profile. */
export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless and offline, in a profile of its own, with a 1280×900 window. */
export async function launchChromium(): Promise<LaunchedChromium> {
  const { executablePath, env } = await chromiumLaunch();
  const profile = mkdtempSync(join(tmpdir(), 'reservebench-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      env,
      headless: true,
      args: CHROMIUM_ARGS,
      offline: true,
      viewport: { width: 1280, height: 900 },
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

function versionCache(): string {
  const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const folder = fileURLToPath(
    new URL(`../node_modules/.cache/sparticuz-chromium-${version}`, import.meta.url),
  );
  mkdirSync(folder, { recursive: true });
  return folder;
}

async function chromiumExecutable(cache: string): Promise<string> {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!existsSync(given)) throw new Error(`CHROMIUM_PATH is ${given}, which does not exist.`);
    return given;
  }
  const binary = await unpackedChromium(cache);
  requireSharedLibraries(binary);
  return binary;
}

async function unpackedChromium(cache: string): Promise<string> {
  const binary = join(cache, 'chromium');
  if (existsSync(binary)) return binary;
  const partial = `${binary}.${process.pid}.partial`;
  await pipeline(
    createReadStream(join(PACKAGE_ROOT, 'bin', 'chromium.br')),
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

/**
 * A fontconfig file naming the package's fonts (bin/fonts.tar.br's fonts/ folder; the fonts.conf beside it
 * there points at AWS Lambda's folders) after the system's configuration, with the font cache kept here too.
 */
function packagedFontConfig(cache: string): string {
  const folder = join(cache, 'fontconfig');
  const file = join(folder, 'fonts.conf');
  if (existsSync(file)) return file;
  const partial = `${folder}.${process.pid}.partial`;
  mkdirSync(partial, { recursive: true });
  execFileSync('tar', ['-x', '-C', partial, 'fonts'], {
    input: brotliDecompressSync(readFileSync(join(PACKAGE_ROOT, 'bin', 'fonts.tar.br'))),
  });
  // Our cache directory comes first: fontconfig writes the cache of a font folder to the first writable one.
  writeFileSync(
    join(partial, 'fonts.conf'),
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
      '<fontconfig>',
      `  <cachedir>${xmlText(join(folder, 'cache'))}</cachedir>`,
      `  <include ignore_missing="yes">${SYSTEM_FONT_CONFIG}</include>`,
      `  <dir>${xmlText(join(folder, 'fonts'))}</dir>`,
      '</fontconfig>',
      '',
    ].join('\n'),
  );
  renameFolderIntoPlace(partial, folder);
  return file;
}

/** A folder cannot replace another; when a concurrent run has put the same one in place, its copy stands. */
function renameFolderIntoPlace(partial: string, folder: string): void {
  try {
    renameSync(partial, folder);
  } catch (error) {
    if (!existsSync(folder)) throw error;
    rmSync(partial, { recursive: true, force: true });
  }
}

const xmlText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
