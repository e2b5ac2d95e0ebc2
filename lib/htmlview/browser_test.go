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
// everything that would reach the network turned off.
func screenshot(t *testing.T, bin, file, out string, width, height int, dark bool) image.Image {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--disable-default-apps",
		"--user-data-dir=" + filepath.Join(t.TempDir(), "profile"),
		fmt.Sprintf("--window-size=%d,%d", width, height),
		"--screenshot=" + out,
	}
	if dark {
		args = append(args, "--force-dark-mode", "--blink-settings=preferredColorScheme=0")
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+file)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", out, err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Errorf("screenshot is %v, want %d×%d", b.Size(), width, height)
	}
	return img
}

// TestBrowser renders each page in headless Chromium at a desktop and a
// phone width, light and dark, and checks that something was drawn and
// that the style sheet applied: the CSP lets it in only by its hash, and
// without it the page has no panel colour and no dark background.
func TestBrowser(t *testing.T) {
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
	for name, page := range pages(t) {
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, page, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			width int
			dark  bool
		}{{1280, false}, {390, false}, {390, true}} {
			t.Run(fmt.Sprintf("%s/%d/dark=%v", name, c.width, c.dark), func(t *testing.T) {
				img := screenshot(t, bin, file, filepath.Join(dir, fmt.Sprintf("%s-%d-%v.png", name, c.width, c.dark)), c.width, 900, c.dark)
				bg, ink, panel := coverage(img, light, darkBG)
				if ink < 0.02 {
					t.Errorf("page looks blank: %.1f%% of pixels differ from the background", 100*ink)
				}
				want, what := panel, "panel colour (light style)"
				if c.dark {
					want, what = bg, "dark background"
				}
				if want < 0.05 {
					t.Errorf("%s on %.1f%% of the page: the style sheet did not apply", what, 100*want)
				}
			})
		}
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
