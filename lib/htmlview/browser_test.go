package htmlview

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// chromium finds Debian's chromium (or another Chrome) on PATH.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// screenshot renders file headless at width × height into a PNG, with
// everything that would reach the network turned off. Chromium runs in a
// process group of its own, which is killed when it exits or times out,
// so no renderer or zygote it started outlives it.
func screenshot(bin, tmp, file, out string, width, height int, dark bool) (image.Image, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--disable-default-apps",
		"--user-data-dir=" + filepath.Join(tmp, "profile"),
		fmt.Sprintf("--window-size=%d,%d", width, height),
		"--screenshot=" + out,
	}
	if dark {
		args = append(args, "--force-dark-mode", "--blink-settings=preferredColorScheme=0")
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+file)...)
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(tmp, "home"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	b, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what is left of its group; ESRCH when nothing is
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", bin, err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %v", out, err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		return nil, fmt.Errorf("screenshot is %v, want %d×%d", b.Size(), width, height)
	}
	return img, nil
}

// browsers is how many Chromiums TestBrowser runs at once: each spends
// most of its time waiting, not computing, so more than one per core.
const browsers = 6

// TestBrowser renders each page in headless Chromium at a desktop and a
// phone width, light and dark, and checks that something was drawn and
// that the style sheet applied: the CSP lets it in only by its hash, and
// without it the page has no panel colour and no dark background. The
// renderings are independent and run in parallel, one Chromium each.
func TestBrowser(t *testing.T) {
	t.Parallel()
	bin := chromium()
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install chromium): pages not rendered in a browser")
	}
	if testing.Short() {
		t.Skip("-short: pages not rendered in a browser")
	}
	dir := t.TempDir()
	light := color.RGBA{0xf6, 0xf8, 0xfa, 0xff}  // --panel
	darkBG := color.RGBA{0x0d, 0x11, 0x17, 0xff} // --bg, dark
	type shot struct {
		name  string
		key   string // the subtest's name
		width int
		dark  bool
		img   image.Image
		err   error
	}
	var shots []*shot
	for name, page := range pages(t) {
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, page, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			width int
			dark  bool
		}{{1280, false}, {390, false}, {390, true}} {
			shots = append(shots, &shot{name: name, key: fmt.Sprintf("%s/%d/dark=%v", name, c.width, c.dark), width: c.width, dark: c.dark})
		}
	}
	slices.SortFunc(shots, func(a, b *shot) int { return strings.Compare(a.key, b.key) })
	var wg sync.WaitGroup
	sem := make(chan struct{}, browsers)
	for i, s := range shots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			tmp := filepath.Join(dir, fmt.Sprint(i))
			if s.err = os.MkdirAll(filepath.Join(tmp, "home"), 0o755); s.err != nil {
				return
			}
			file := filepath.Join(dir, s.name+".html")
			s.img, s.err = screenshot(bin, tmp, file, filepath.Join(tmp, "shot.png"), s.width, 900, s.dark)
		}()
	}
	wg.Wait()
	for _, s := range shots {
		t.Run(s.key, func(t *testing.T) {
			t.Parallel()
			if s.err != nil {
				t.Fatal(s.err)
			}
			bg, ink, panel := coverage(s.img, light, darkBG)
			if ink < 0.02 {
				t.Errorf("page looks blank: %.1f%% of pixels differ from the background", 100*ink)
			}
			want, what := panel, "panel colour (light style)"
			if s.dark {
				want, what = bg, "dark background"
			}
			if want < 0.05 {
				t.Errorf("%s on %.1f%% of the page: the style sheet did not apply", what, 100*want)
			}
		})
	}
}

// coverage returns the share of pixels that are the dark background, that
// differ from the top-left pixel (the page background), and that are the
// light panel colour.
func coverage(img image.Image, panel, dark color.RGBA) (bg, ink, pan float64) {
	b := img.Bounds()
	corner := color.RGBAModel.Convert(img.At(b.Min.X, b.Min.Y)).(color.RGBA)
	var nbg, nink, npan int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c != corner {
				nink++
			}
			if c == panel {
				npan++
			}
			if c == dark {
				nbg++
			}
		}
	}
	n := float64(b.Dx() * b.Dy())
	return float64(nbg) / n, float64(nink) / n, float64(npan) / n
}
