import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
import{createRequire as o}from"node:module";var r;function t(){return r??=o(import.meta.url)("node:crypto"),r}function a(){return t().createHash("sha256")}function u(e){return t().randomBytes(e).toString("hex")}export{a,u as b};
//# sourceMappingURL=chunk-L4DBUI2V.js.map
