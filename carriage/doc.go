// Package carriage holds the forms a parameter set travels in once it
// leaves its origin (prior-carriage §15 to §19): usage statements
// (§18.1), wai.prior.set listings and the statement a listing binds
// (D-H1, §18.1), and sealed sets, wai.prior.sealed (§18.2).
// Chunk-tree heads (§19) and amortisation plans (§17) are its
// subpackages tree and amortise.
//
// Use it to read or check a statement, write or hold a listing, or seal
// and open a set. The wire-form readers (package prior) do not import it:
// a sink that opens a sealed set hands the plaintext to prior under its
// inner form. Every refusal is a *refusal.Error carrying a §20 code.
//
// # Readings
//
// docs/READINGS.md, section "Carriage: usage statements, listings, sealed sets (carriage)",
// states the readings this package follows.
package carriage
