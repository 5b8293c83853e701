import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
import{h as i}from"./chunk-I2TATZ7H.js";function a(e,r){let t=e.verified?`yes, ${i(e.verified.at,r)}${e.verified.level==="write"?" (at write)":""}`:e.changedSinceRecorded?"CHANGED since":e.lastFailure?.event==="verify"?"FAILED":"no",d=e.drilled?`yes, ${i(e.drilled.at,r)}`:e.lastFailure?.event==="drill"?"FAILED":"no";return{verified:t,drilled:d}}export{a};
//# sourceMappingURL=chunk-NJTKQA6V.js.map
