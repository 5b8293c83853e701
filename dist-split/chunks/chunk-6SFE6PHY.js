import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
import{c as r}from"./chunk-UZQIUS2S.js";import i from"node:fs";import n from"node:path";var e;function p(){if(e===void 0){let o=JSON.parse(i.readFileSync(n.join(r(),"package.json"),"utf8"));if(typeof o.version!="string"||o.version==="")throw new Error(`${n.join(r(),"package.json")} has no version`);e=o.version}return e}export{p as a};
//# sourceMappingURL=chunk-6SFE6PHY.js.map
