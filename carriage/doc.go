// Package carriage holds the forms a parameter set travels in once it
// leaves its origin (prior-carriage.md §15 to §19): usage statements
// (§18.1), wai.prior.set listings and the statement a listing binds
// (DECISIONS H1, §18.1), and sealed sets, wai.prior.sealed (§18.2).
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
// Besides DECISIONS G and H, this package reads the spec so where its text
// leaves a choice (a conformance report should name these):
//
//   - §18.1 licence expressions: a parenthesis is a token that takes no
//     space after "(" or before ")"; exactly one space stands between any
//     other two tokens. A word spelling AND, OR or WITH in another case is
//     refused wherever it stands; "DocumentRef-" must be followed by an
//     identifier string, ':' and a "LicenseRef-"; "+" follows a licence
//     identifier only, not a reference; an exception identifier is an
//     identifier string.
//   - §18.1 terms (DECISIONS H7): the URI starts with "https://" in lower
//     case and is read by net/url, whose host (port stripped) is not empty.
//   - §18.2 step 4: the refusal's code is set_key_absent, as §20's table
//     and the corpus name it; its reason says the set is not held
//     (prior_not_held, SPEC §3.1 check 6).
//   - §18.2 step 5: Open writes the plaintext as it decrypts, before the
//     digest is known; on a refusal the caller discards what it wrote
//     (the CLI writes a temporary file and renames it only on success).
//   - DECISIONS H1 listings: a listing that does not read, or a file it
//     names that is not held, is prior_not_held (SPEC §3.1); a held file
//     whose length or SHA-256 is not the listing's is set_digest_mismatch
//     (DECISIONS H3's code for bytes that are not the asked digest's).
//   - DECISIONS H8 keys files: kid and key in lower-case hexadecimal.
package carriage
