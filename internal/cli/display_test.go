package cli

import "testing"

func TestDisplayQuotesWhatAShellWouldSplit(t *testing.T) {
	got := display([]string{"enc_range_sum", "--variant-name", "", "--encrypt", "id:ore,k:ashe", "--note", "it's two words",
		"--dsn", "postgres://u:secret@127.0.0.1:5432/db"})
	want := `run enc_range_sum --variant-name '' --encrypt id:ore,k:ashe --note 'it'\''s two words' --dsn 'postgres://u:xxxxx@127.0.0.1:5432/db'`
	if got != want {
		t.Errorf("display:\n got %s\nwant %s", got, want)
	}
}
