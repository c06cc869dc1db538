package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MB": 512 << 20, "1G": 1 << 30, "256m": 256 << 20, "64K": 64 << 10, "1048576": 1 << 20} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"lots", "-1G", "1T"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestAliveIgnoresMissingProcess(t *testing.T) {
	if alive(0) || alive(1<<22+12345) {
		t.Fatal("alive reported a process that cannot exist")
	}
}

// TestOwnerAlive: the owner is this process only with its own start time;
// a pid that was reused (another start time) or has exited is gone.
func TestOwnerAlive(t *testing.T) {
	self := Self()
	if !self.Alive() {
		t.Fatal("this process is not alive as an owner")
	}
	if (&Owner{PID: self.PID, Start: self.Start + 1}).Alive() {
		t.Error("a recycled pid counts as the owner")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if (&Owner{PID: cmd.Process.Pid}).Alive() {
		t.Error("an exited process counts as the owner")
	}
	var none *Owner
	if none.Alive() {
		t.Error("no owner counts as alive")
	}
}

// TestRegistryForgetsWhatIsGone: a pointer to a directory without a
// sandbox is dropped by List.
func TestRegistryForgetsWhatIsGone(t *testing.T) {
	t.Setenv("ENCBENCH_STATE_DIR", t.TempDir())
	dir := t.TempDir()
	if err := enrol(dir, "postgres"); err != nil {
		t.Fatal(err)
	}
	all, err := List()
	if err != nil || len(all) != 0 {
		t.Fatalf("List: %v %v", all, err)
	}
	reg, _ := RegistryDir()
	if entries, _ := os.ReadDir(reg); len(entries) != 0 {
		t.Errorf("stale pointers kept: %d", len(entries))
	}
}

func TestPostgresQuotesSettings(t *testing.T) {
	if got := pgQuote("it's"); got != "'it''s'" {
		t.Errorf("pgQuote = %s", got)
	}
}

func TestEngineNamesAndAliases(t *testing.T) {
	if p, err := provider("postgresql"); err != nil || p.Name() != "postgres" {
		t.Errorf("postgresql: %v, %v", p, err)
	}
	for name, want := range map[string]string{
		"":        "no sandbox engine given: pass --engine, one of mariadb, mongodb, postgres",
		"mariadv": `unknown sandbox engine "mariadv" (did you mean mariadb?)`,
	} {
		if _, err := provider(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", name, err, want)
		}
	}
}

// TestVariantCarriesTheServersLayerOptions: a sandbox takes its layers'
// options from the variant as from their flags, and refuses the two when
// they disagree or when the variant encrypts in the client.
func TestVariantCarriesTheServersLayerOptions(t *testing.T) {
	o := Options{Variant: "tls1.2:cipher=ECDHE-ECDSA-AES128-GCM-SHA256+tde:cipher=aes-cbc"}
	if err := o.validate(); err != nil || o.Variant != "tls+tde" || o.TLSVersion != "1.2" || o.TLSCipher != "ECDHE-ECDSA-AES128-GCM-SHA256" || o.TDECipher != "aes-cbc" {
		t.Errorf("%+v %v", o, err)
	}
	for _, bad := range []Options{{Variant: "tls1.3", TLSVersion: "1.2"}, {Variant: "tde:cipher=aes-cbc", TDECipher: "aes-ctr"}, {Variant: "colenc50"}, {Variant: "aa"},
		{Variant: "tls:client-cert=on", TLSOptional: true}, {Variant: "tde", ClientCert: true}} {
		if err := bad.validate(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
