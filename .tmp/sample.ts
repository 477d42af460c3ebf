import fc from 'fast-check';
import { programArbitrary } from '../harness/explore/program-arbitrary.ts';
import { specText, scheduled } from '../harness/explore/program.ts';
import s from '../strategies/controls/release-twice.ts';
const progs = fc.sample(programArbitrary(s), { seed: 2026, numRuns: 12 });
for (const p of progs) console.log(p.sessions.map(x=>x.length).join('+'), '|', scheduled(p).map(x=>`s${x.session}:${x.body}`).join(' ; '));
