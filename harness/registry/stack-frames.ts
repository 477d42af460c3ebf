/** The places in a module's code an error's stack passes through, for lines that say where. */
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface CodeFrame {
  /** The file as a file: URL (ES modules are named so on a stack, CommonJS ones by path). */
  url: string;
  /** `path:line:column`, as an editor opens it. */
  at: string;
}

/** The frames of a stack (its first line is the message) that are in a file, nearest first. */
export function codeFrames(stack: string): CodeFrame[] {
  return stack
    .split('\n')
    .slice(1)
    .flatMap((frame) => {
      // `at f (place)` or `at place`; node's own frames (`node:internal/…`) and native ones name no file.
      const place = /^at (?:.*? \()?((?:file:\/\/|\/)[^()]*?):(\d+):(\d+)\)?$/.exec(frame.trim());
      if (!place?.[1]) return [];
      const url = place[1].startsWith('/') ? pathToFileURL(place[1]).href : place[1];
      return [{ url, at: `${fileURLToPath(url)}:${place[2]}:${place[3]}` }];
    });
}
