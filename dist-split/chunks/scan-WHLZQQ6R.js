import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
import{a,b,c,d,e,f}from"./chunk-F6T2NEQA.js";import"./chunk-VP6UR4F7.js";import"./chunk-YG3YR7ZO.js";import"./chunk-I2TATZ7H.js";import"./chunk-ZGAE32IB.js";import"./chunk-3R7LF5IX.js";import"./chunk-IQJUWDGO.js";import"./chunk-M3CM4BIJ.js";import"./chunk-4YFZMRIL.js";export{d as exitCodeOf,e as humanReport,a as orphanJson,b as routingJson,f as runScan,c as storeJson};
//# sourceMappingURL=scan-WHLZQQ6R.js.map
