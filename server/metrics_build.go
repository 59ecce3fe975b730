package server

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// release is a version stamped at link time (the proctor command's -X main.version, handed over
// with SetVersion); empty, the build info decides.
var release atomic.Pointer[string]

// SetVersion makes v the version Version reports ("" forgets an earlier one). The proctor
// command calls it once at start-up with its link-time version, when it has one.
func SetVersion(v string) { release.Store(&v) }

// Build describes the running binary: what /metrics reports as proctor_build_info and MCP as its
// serverInfo version.
type Build struct {
	// Version is the link-time version, else the module version, else the VCS revision (with
	// "-dirty" when the checkout had changes), else "dev".
	Version string
	// GoVersion is the toolchain that built the binary.
	GoVersion string
	// Revision is the VCS revision the binary was built from ("" when unknown).
	Revision string
}

// Version is the running binary's version (Build.Version).
func Version() string { return CurrentBuild().Version }

// CurrentBuild reads the running binary's build information.
func CurrentBuild() Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{GoVersion: runtime.Version()}
	}
	var stamped string
	if v := release.Load(); v != nil {
		stamped = *v
	}
	return buildOf(info, stamped)
}

// buildOf derives the Build from a binary's build information and its link-time version.
func buildOf(info *debug.BuildInfo, stamped string) Build {
	b := Build{GoVersion: info.GoVersion, Version: stamped}
	if b.GoVersion == "" {
		b.GoVersion = runtime.Version()
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case b.Version != "":
	case info.Main.Version != "" && info.Main.Version != "(devel)":
		// A module version: `go install ...@v1.2.3`, or a pseudo-version the go command derived
		// from the checkout (it already says +dirty).
		b.Version = info.Main.Version
	case b.Revision != "":
		b.Version = b.Revision
		if len(b.Version) > 12 {
			b.Version = b.Version[:12]
		}
		if dirty {
			b.Version += "-dirty"
		}
	default:
		b.Version = "dev"
	}
	return b
}

// newBuildInfo is the proctor_build_info gauge: always 1, its labels say what is running, so
// that a dashboard can show versions across replicas and mark deploys.
func newBuildInfo(b Build) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "proctor_build_info",
		Help:        "The running binary: version, Go version and VCS revision. Always 1.",
		ConstLabels: prometheus.Labels{"version": b.Version, "goversion": b.GoVersion, "revision": b.Revision},
	})
	g.Set(1)
	return g
}
