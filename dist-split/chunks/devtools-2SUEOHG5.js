import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
//# sourceMappingURL=devtools-2SUEOHG5.js.map
