package workload

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

type fakeFamily struct {
	name  string
	names []string
}

type noOptions struct{}

func (noOptions) Bind(*pflag.FlagSet, string) {}

func (f fakeFamily) Name() string { return f.name }
func (f fakeFamily) Workloads() map[string]string {
	out := map[string]string{}
	for _, n := range f.names {
		out[n] = "test"
	}
	return out
}
func (fakeFamily) NewOptions() Options                   { return noOptions{} }
func (fakeFamily) New(string, Options) (Workload, error) { return nil, nil }

func TestRegistryRefusesDuplicates(t *testing.T) {
	r := NewRegistry()
	if err := r.Add(fakeFamily{"a", []string{"w1", "w2"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(fakeFamily{"b", []string{"w3", "w2"}}); err == nil || !strings.Contains(err.Error(), `"w2"`) {
		t.Errorf("a second owner of w2: %v", err)
	}
	if err := r.Add(fakeFamily{"a", []string{"w9"}}); err == nil {
		t.Error("a second family named a was accepted")
	}
	if got := strings.Join(r.Names(), ","); got != "w1,w2" {
		t.Errorf("a refused family left names behind: %s", got)
	}
	if _, err := r.Lookup("w9"); err == nil {
		t.Error("lookup of an unregistered workload")
	}
}
