package all

import (
	"testing"

	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/locale"
)

// Every plugin layer opens on the engines it names (as the engine kinds
// its sandboxes are served by) and states its leakage in the message
// catalogue, in every language the report has (TestCatalogueComplete
// checks the translations).
func TestPluginLayersStateTheirLeakage(t *testing.T) {
	english := locale.LeakageEnglish()
	kinds := map[string]string{"postgres": "postgres", "mariadb": "mysql", "mysql": "mysql", "mongodb": "mongodb"}
	for _, l := range layer.Default().List() {
		p, ok := l.(layer.Plugin)
		if !ok {
			continue
		}
		for _, e := range l.Engines() {
			a, err := p.Open(layer.Spec{Layer: l.Name()}, kinds[e])
			if err != nil {
				t.Errorf("%s does not open on %s, an engine it names: %v", l.Name(), e, err)
				continue
			}
			for _, part := range []string{"primitive", "reveals", "enables"} {
				if english[locale.LeakID(a.Leakage(), part)] == "" {
					t.Errorf("%s on %s: no leak.%s.%s in the catalogue", l.Name(), e, a.Leakage(), part)
				}
			}
		}
	}
}
