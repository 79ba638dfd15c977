// Package faultfs gives tests file systems that fail the way disks do: a
// small tmpfs to fill up, and an ext4 image mounted errors=remount-ro that
// an error turns read-only under an open database, as a failing disk does.
//
// Mounting takes root (or CAP_SYS_ADMIN) and, for ext4, a loop device and
// mkfs.ext4. Where they are missing a test skips, saying why, unless
// LEXSONA_REQUIRE_FAULTS=1 (CI sets it), which makes that a failure.
package faultfs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
)

// RequireEnv names the variable that turns a fault test's skip into a
// failure: CI sets it to 1.
const RequireEnv = "LEXSONA_REQUIRE_FAULTS"

// Required reports whether LEXSONA_REQUIRE_FAULTS=1: a fault test that
// cannot set up its file system fails instead of skipping.
func Required() bool { return testenv.Required(RequireEnv) }

// Skip skips tb saying why, or fails it under LEXSONA_REQUIRE_FAULTS=1.
func Skip(tb testing.TB, why string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("%s (LEXSONA_REQUIRE_FAULTS=1 makes this a failure)", why)
	}
	tb.Skipf("%s; set LEXSONA_REQUIRE_FAULTS=1 to make this a failure", why)
}

// run runs a command, returning its error with its output.
func run(name string, args ...string) error {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// mount mounts with args on a new folder, unmounted at the end of the
// test (lazily when something still holds it), and returns the folder.
func mount(tb testing.TB, args ...string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := run("mount", append(args, dir)...); err != nil {
		Skip(tb, fmt.Sprintf("cannot mount a test file system (%v): the fault tests need root", err))
	}
	tb.Cleanup(func() {
		if err := run("umount", dir); err != nil {
			if err2 := run("umount", "-l", dir); err2 != nil {
				tb.Errorf("%v; %v", err, err2)
			}
		}
	})
	return dir
}

// Tmpfs mounts a tmpfs of size (like "8m") and returns its folder.
func Tmpfs(tb testing.TB, size string) string {
	tb.Helper()
	return mount(tb, "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs")
}

// Fill writes a file in dir until its file system has no byte left and
// returns the file's path: removing it frees the space again.
func Fill(tb testing.TB, dir string) string {
	tb.Helper()
	f, err := os.CreateTemp(dir, "filler-*")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	for chunk := 1 << 20; chunk > 0; chunk /= 4 {
		buf := make([]byte, chunk)
		for {
			_, err := f.Write(buf)
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			if err != nil {
				tb.Fatalf("filling %s: %v", dir, err)
			}
		}
	}
	return f.Name()
}

// Ext4 is an ext4 file system on a loop device, mounted errors=remount-ro.
type Ext4 struct {
	Dir string // where it is mounted
	dev string // its device's name (loop0), under /sys/fs/ext4
}

// MountExt4 makes an ext4 image of size bytes in a temporary folder and
// mounts it errors=remount-ro.
func MountExt4(tb testing.TB, size int64) *Ext4 {
	tb.Helper()
	img := filepath.Join(tb.TempDir(), "ext4.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		tb.Fatal(err)
	}
	if err := run("mkfs.ext4", "-q", "-F", img); err != nil {
		Skip(tb, fmt.Sprintf("cannot make an ext4 file system: %v", err))
	}
	dir := mount(tb, "-t", "ext4", "-o", "loop,errors=remount-ro", img)
	dev, err := device(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return &Ext4{Dir: dir, dev: filepath.Base(dev)}
}

// device returns the source of the mount at dir (/proc/self/mounts).
func device(dir string) (string, error) {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 1 && fields[1] == dir {
			return fields[0], nil
		}
	}
	return "", fmt.Errorf("no mount at %s in /proc/self/mounts", dir)
}

// Fail reports an error of the file system to ext4 (its sysfs
// trigger_fs_error), which, mounted errors=remount-ro, makes it read-only
// at once: every write to it, through files already open included, fails
// with EROFS.
func (e *Ext4) Fail(tb testing.TB) {
	tb.Helper()
	trigger := filepath.Join("/sys/fs/ext4", e.dev, "trigger_fs_error")
	if err := os.WriteFile(trigger, []byte("lexsona fault test\n"), 0); err != nil {
		Skip(tb, fmt.Sprintf("cannot make ext4 fail through %s: %v", trigger, err))
	}
	probe := filepath.Join(e.Dir, "probe")
	if err := os.WriteFile(probe, nil, 0o600); !errors.Is(err, syscall.EROFS) {
		tb.Fatalf("after the error, creating %s: %v, want EROFS", probe, err)
	}
}
