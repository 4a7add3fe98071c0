package views

import (
	"errors"
	"os"
	"testing"
)

// A served explorer opens no binary a profile names, however real.
func TestDisasmServedOpensNoBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if _, err := NewDisasm(&Common{}).bins.open(self); err != nil {
		t.Skipf("this test binary cannot be disassembled here: %v", err)
	}
	if _, err := NewDisasm(&Common{Served: true}).bins.open(self); !errors.Is(err, errServedBinaries) {
		t.Errorf("served: open %s: %v", self, err)
	}
}
