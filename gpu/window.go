package gpu

// Key is a key a Window reports: the few a viewer acts on, and KeyOther.
type Key int

// The keys Window.Events reports.
const (
	KeyOther Key = iota
	KeySpace
	KeyRight
	KeyLeft
	KeyS
	KeyQ
	KeyEscape
)
