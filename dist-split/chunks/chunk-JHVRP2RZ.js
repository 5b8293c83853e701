import {createRequire as __hfxCreateRequire} from 'node:module'; const require = __hfxCreateRequire(import.meta.url);
var i=["sessions","detail","lineage","routing","findings","files","activity","backups"],s={sessions:"Sessions",detail:"Detail",lineage:"Lineage",routing:"Routing",findings:"Findings",files:"Files",activity:"Activity",backups:"Backups"};export{i as a,s as b};
//# sourceMappingURL=chunk-JHVRP2RZ.js.map
