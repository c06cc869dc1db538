package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// browsers are the names headless Chromium goes by; Debian's is chromium.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// chromium finds the browser that prints PDFs.
func chromium() (string, error) {
	for _, b := range browsers {
		if p, err := exec.LookPath(b); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("--pdf needs headless Chromium: install Debian's chromium package (apt-get install chromium fonts-noto-cjk) or run make run, which installs it")
}

// ChromiumArgs are the flags every headless run here uses: no network
// (every host resolves to nothing), a throwaway profile, and the scripts
// given time to draw the charts before the page is captured.
func ChromiumArgs(profile string) []string {
	args := []string{"--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=15000", "--user-data-dir=" + profile}
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox.
		args = append(args, "--no-sandbox")
	}
	return args
}

// writePDF renders the print layout (one column of charts sized for A4,
// page breaks between sections, page numbers from @page margin boxes),
// lets Chromium draw it and print it to path.
func writePDF(browser string, m *Model, path string) error {
	var page bytes.Buffer
	if err := HTML(&page, m, true); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "encbench-pdf-")
	if err != nil {
		return fmt.Errorf("printing the PDF: %w", err)
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "report.html")
	if err := os.WriteFile(src, page.Bytes(), 0o600); err != nil {
		return fmt.Errorf("printing the PDF: %w", err)
	}
	tmp := path + ".tmp"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append(ChromiumArgs(filepath.Join(work, "profile")), "--no-pdf-header-footer", "--print-to-pdf="+tmp, "file://"+src)
	out, err := exec.CommandContext(ctx, browser, args...).CombinedOutput()
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("printing the PDF with %s: %w: %s", browser, err, lastLine(out))
	}
	head := make([]byte, 5)
	f, err := os.Open(tmp)
	if err == nil {
		_, err = f.Read(head)
		f.Close()
	}
	if err != nil || string(head) != "%PDF-" {
		_ = os.Remove(tmp)
		return fmt.Errorf("printing the PDF with %s: no PDF written: %s", browser, lastLine(out))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}
