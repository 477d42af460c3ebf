import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
const ROOT='.'; const SOURCES=['harness','strategies','scenarios','scripts','bin'];
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
const files=d=>readdirSync(d).flatMap(n=>{const p=join(d,n);return statSync(p).isDirectory()?files(p):/\.(ts|js)$/.test(n)?[p]:[]});
const folder=f=>{const parts=f.split('/');return parts[0]==='harness'&&parts.length>2?`harness/${parts[1]}`:parts[0]==='strategies'?'strategies':parts[0]==='harness'?'harness':parts[0];};
const edges=new Map();
for (const f of SOURCES.flatMap(files)) { const t=readFileSync(f,'utf8'); for (const m of t.matchAll(IMPORT)) { const to=normalize(join(dirname(f),m[1])); const a=folder(f), b=folder(to); if(a!==b){ if(!edges.has(a))edges.set(a,new Map()); const e=edges.get(a); if(!e.has(b))e.set(b,[]); e.get(b).push(`${f} → ${to}`);} } }
// find cycles via SCC (Tarjan)
let idx=0; const st=[], on=new Set(), ix=new Map(), low=new Map(), sccs=[];
const nodes=new Set([...edges.keys(),...[...edges.values()].flatMap(m=>[...m.keys()])]);
function sc(v){ix.set(v,idx);low.set(v,idx);idx++;st.push(v);on.add(v);for(const w of (edges.get(v)?.keys()??[])){if(!ix.has(w)){sc(w);low.set(v,Math.min(low.get(v),low.get(w)));}else if(on.has(w))low.set(v,Math.min(low.get(v),ix.get(w)));} if(low.get(v)===ix.get(v)){const c=[];let w;do{w=st.pop();on.delete(w);c.push(w);}while(w!==v); if(c.length>1)sccs.push(c);} }
for(const v of nodes) if(!ix.has(v)) sc(v);
console.log('SCCs', JSON.stringify(sccs));
for (const c of sccs) for (const a of c) for (const [b,l] of edges.get(a)??[]) if (c.includes(b)) console.log(a,'->',b, l.length, l.slice(0,3).join(' | '));
