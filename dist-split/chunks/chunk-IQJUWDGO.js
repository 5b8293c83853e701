import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
import{a as e,b as o}from"./chunk-M3CM4BIJ.js";var t={out:s=>process.stdout.write(`${e(s)}
`),err:s=>process.stderr.write(`${e(s)}
`),json:s=>process.stdout.write(`${o(s,2)}
`),now:()=>Date.now()/1e3,env:process.env};export{t as a};
//# sourceMappingURL=chunk-IQJUWDGO.js.map
