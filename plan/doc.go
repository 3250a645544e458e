// Package plan routes each graph to a fabric its certificate allows (§7.2,
// §8.6, §11 "In the sink") and says where every decode ran (§12).
//
// Users hold a Session, which loads each graph once (one parse, one bounds
// pass, one program per fabric, all kept by the graph's SHA-256) and
// decodes many times, each decode planned once. The fabrics themselves,
// the choice among them and their names are package fabric's.
package plan
