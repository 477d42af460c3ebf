/**
 * A trial as the bench posts it to one agent, and where the agent finds the design: a built-in design
 * (or any file inside the suite) travels as its path inside the suite, so an agent installed elsewhere
 * loads its own copy; a plug-in outside it as its absolute path, which must hold the same file on the
 * agent's host. Either way the agent digests what it found (source-manifest.ts) and refuses a trial whose
 * code is not the bench's: a verdict about other code is no verdict.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Durability } from '../../database/durability.ts';
import { Errors } from '../../errors.ts';
import { sourceEntry } from '../../registry/source-manifest.ts';
import type { BenchContract } from '../bench-task.ts';
import type { BurstOrder } from '../burst-task.ts';
import type { OpenSettings } from '../open-model.ts';
import type { AgentThreadPlan } from './agent-plan.ts';

/** The suite's root on this host, which a design's relative `file` is inside. */
const SUITE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface AgentDesign {
  id: string;
  /** As source-manifest names it: inside the suite relative to its root, else absolute. */
  file: string;
  /** A variant's knobs (`buckets=16`), or empty. */
  knobs: string;
  sha256: string;
}

export interface AgentTrialTask {
  kind: 'trial';
  /** How the bench names the series, for the agent's messages. */
  label: string;
  /** The second key of the release lock (BURST_LOCK_CLASS is the first). */
  releaseKey: number;
  contract: BenchContract;
  design: AgentDesign;
  schema: string;
  durability: Durability;
  sku: string;
  threads: AgentThreadPlan[];
  open?: OpenSettings;
  warmupMs: number;
  durationMs: number;
  timeoutMs: number;
}

/**
 * One agent's part of a burst: the order of one burst process (burst-plan.ts deals request i to agent
 * i mod N), less what the agent finds on its own host — its connection string and the design's module.
 */
export interface AgentBurstTask {
  kind: 'burst';
  label: string;
  design: AgentDesign;
  schema: string;
  durability: Durability;
  order: Omit<BurstOrder, 'connection' | 'strategyModuleUrl'>;
}

export type AgentTask = AgentTrialTask | AgentBurstTask | { kind: 'done' };

/** What an agent writes back for one task: its part of the trial, or why it has none. */
export type AgentReply<R> = { ok: R } | { error: string };

/** The design of a series as it travels: where it is in the suite (or outside it), and its digest. */
export function agentDesign(id: string, moduleUrl: string): AgentDesign {
  const hash = moduleUrl.indexOf('#');
  const entry = sourceEntry('design', id, moduleUrl);
  return { id, file: entry.file, knobs: hash < 0 ? '' : moduleUrl.slice(hash + 1), sha256: entry.sha256 };
}

/** The design's module URL on this host, once its code is found to be the bench's. */
export function localModuleUrl(design: AgentDesign): string {
  const path = isAbsolute(design.file) ? design.file : `${SUITE_ROOT}${design.file}`;
  const url = `${pathToFileURL(path).href}${design.knobs ? `#${design.knobs}` : ''}`;
  if (!existsSync(path)) throw Errors.badInput(`${design.id}: no ${path} on this agent's host`);
  const found = sourceEntry('design', design.id, url).sha256;
  if (found !== design.sha256) {
    throw Errors.badInput(
      `${design.id}: ${design.file} on this agent's host is not the bench's code (sha256 ${found.slice(0, 12)}… against ${design.sha256.slice(0, 12)}…): run the same code on every agent`,
    );
  }
  return url;
}
