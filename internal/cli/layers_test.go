package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/layer"
)

// TestLayersListsEveryLayer: encbench layers names every registered
// layer with each of its options and aliases, and the engines whose
// sandboxes run it; a variant its list names parses.
func TestLayersListsEveryLayer(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Execute(context.Background(), []string{"layers"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := out.String()
	for _, l := range layer.Default().List() {
		if !strings.Contains(text, l.Name()+" ("+string(l.Where())+"; sandboxes: "+strings.Join(l.Engines(), ", ")+")") {
			t.Errorf("%s's line is missing:\n%s", l.Name(), text)
		}
		for _, o := range l.Options() {
			if !strings.Contains(text, "    "+o.Key+"=") {
				t.Errorf("%s's option %s is missing", l.Name(), o.Key)
			}
		}
		for _, a := range l.Aliases() {
			if !strings.Contains(text, a.Name) {
				t.Errorf("%s's alias %s is missing", l.Name(), a.Name)
			}
		}
	}
}
