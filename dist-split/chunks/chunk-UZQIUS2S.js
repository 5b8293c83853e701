import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
import n from"node:fs";import r from"node:path";import{fileURLToPath as s}from"node:url";var i=r.dirname(s(import.meta.url));function o(){return r.basename(i)==="source"?r.resolve(i,"..","dist"):i}function a(e){let t=r.join(o(),e);if(!n.existsSync(t))throw new Error(`internal: ${t} is missing; build hfx first (npm run build)`);return t}function p(){return r.dirname(o())}export{o as a,a as b,p as c};
//# sourceMappingURL=chunk-UZQIUS2S.js.map
