//go:build cgo

package gpu

// SetForms makes d take the kernel forms of a software rasteriser or a
// hardware GPU, texel or storage reads, and packed or unpacked tensors,
// whatever it is, until the returned function puts them back: for tests,
// this package's and its external ones, to prove on llvmpipe the forms a
// hardware GPU takes.
func SetForms(d *Device, software, texel, packs bool) (restore func()) {
	var was [3]bool
	_ = d.th.call(func() error {
		was = [3]bool{d.software, d.texel, d.packs}
		d.software, d.texel, d.packs = software, texel, packs
		return nil
	})
	return func() {
		_ = d.th.call(func() error { d.software, d.texel, d.packs = was[0], was[1], was[2]; return nil })
	}
}
