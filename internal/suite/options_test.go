package suite

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/workload"
	_ "github.com/encbench/encbench/internal/workload/connect"
	_ "github.com/encbench/encbench/internal/workload/oltp"
	_ "github.com/encbench/encbench/internal/workload/tpcc"
	_ "github.com/encbench/encbench/internal/workload/ycsb"
)

const optionsSuite = `name: x
targets:
  - engine: postgres
variants: [plain, tls]
workloads:
  - name: oltp_point_select
    options: {range-size: 10}
  - name: tpcc
    label: tpcc_rc
    options:
      isolation: read-committed
      %s
threads: [1]
time: 1
warmup: 0
repetitions: 1
data: {tables: 2, table_size: 1000, warehouses: 1}
`

func TestCheckOptionsNamesLineOfAForeignOption(t *testing.T) {
	bad := strings.Replace(optionsSuite, "%s", "recordcount: 5", 1)
	s, err := Parse([]byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckOptions(workload.Default())
	if err == nil || !strings.Contains(err.Error(), "line 12: --recordcount does not apply to tpcc") {
		t.Fatalf("foreign option: %v", err)
	}
	good := strings.Replace(optionsSuite, "%s", "think-time: false", 1)
	s, _ = Parse([]byte(good))
	if err := s.CheckOptions(workload.Default()); err != nil {
		t.Fatalf("good suite: %v", err)
	}
}

func TestCheckOptionsRefusesBadValuesAndUnusedData(t *testing.T) {
	for text, want := range map[string]string{
		strings.Replace(optionsSuite, "%s", "think-time: maybe", 1):                                                               "line 12: workload tpcc_rc, option think-time",
		strings.Replace(optionsSuite, "%s", "warehouses: 2", 1):                                                                   "line 12: workload tpcc_rc: warehouses shapes the data set",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "{range-size: 10}", "{range-size: 10, tables: 3}", 1):         "line 7: workload oltp_point_select: tables shapes the data set",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "{range-size: 10}", "{range-size: 10, rand-type: pareto}", 1): "",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "warehouses: 1}", "fieldcount: 3}", 1):                        "data option fieldcount applies to none",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "name: tpcc\n", "name: tpcd\n", 1):                            "line 8: unknown workload \"tpcd\"",
	} {
		s, err := Parse([]byte(text))
		if err == nil {
			err = s.CheckOptions(workload.Default())
		}
		if want == "" {
			// data and setting (sysbench's --rand-type): a run may set it.
			if err != nil {
				t.Errorf("accepted options refused: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
}

// Every built-in suite's options apply to its workloads.
func TestBuiltinSuitesPassTheOptionCheck(t *testing.T) {
	all, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if err := s.CheckOptions(workload.Default()); err != nil {
			t.Errorf("suite %s: %v", s.Name, err)
		}
		// Every scale too: its options are set on every workload.
		for name := range s.Scales {
			o := NoOverrides()
			o.Scale = name
			p, err := Expand(s, o, nil)
			if err == nil {
				err = p.Suite.CheckOptions(workload.Default())
			}
			if err != nil {
				t.Errorf("suite %s, scale %s: %v", s.Name, name, err)
			}
		}
	}
}
