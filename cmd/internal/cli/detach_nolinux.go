//go:build !linux

package cli

// inheritNothing is Linux's close_range (detach_linux.go); elsewhere descriptors inherited
// without close-on-exec pass to a detached process as they did.
func inheritNothing() {}
