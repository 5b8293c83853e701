import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
import{e as a,f as b,g as c,h as d,i as e}from"./chunk-4YFZMRIL.js";export{d as critical,e as deferredExitCode,c as interruptRequested,a as onInterruptOrExit,b as ownSignals};
//# sourceMappingURL=interrupts-3F5C3IHQ.js.map
