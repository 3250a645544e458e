//go:build !unix

package mapped

import (
	"errors"
	"os"
)

func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmap([]byte) error { return nil }
