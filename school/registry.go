package school

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"sync/atomic"
)

// Registry holds every configured school and finds them by host, school id and subdomain.
//
// The set it holds can be replaced while requests are served (Replace, on SIGHUP): each lookup
// reads one complete set, never a mix of two, and the School it returns is never changed
// afterwards. A request resolves its school once, at the edge, and carries that School in its
// context to the end, so a reload cannot move a request in flight to another school.
type Registry struct {
	set atomic.Pointer[schoolSet]
}

// schoolSet is one immutable set of schools with its indexes.
type schoolSet struct {
	byHost      map[string]*School
	bySchool    map[int64]*School
	bySubdomain map[string]*School
	all         []*School
}

// NewRegistry indexes schools. Duplicate school ids, subdomains or hosts are an error (config
// validation reports them first, with file names; this is the last line of defence).
func NewRegistry(schools []*School) (*Registry, error) {
	set, err := newSchoolSet(schools)
	if err != nil {
		return nil, err
	}
	r := &Registry{}
	r.set.Store(set)
	return r, nil
}

func newSchoolSet(schools []*School) (*schoolSet, error) {
	r := &schoolSet{
		byHost:      make(map[string]*School, len(schools)),
		bySchool:    make(map[int64]*School, len(schools)),
		bySubdomain: make(map[string]*School, len(schools)),
	}
	for _, t := range schools {
		if _, dup := r.byHost[t.Host]; dup {
			return nil, fmt.Errorf("school: two schools share host %q", t.Host)
		}
		if _, dup := r.bySchool[t.SchoolID]; dup {
			return nil, fmt.Errorf("school: two schools share school_id %d", t.SchoolID)
		}
		if _, dup := r.bySubdomain[t.Subdomain]; dup {
			return nil, fmt.Errorf("school: two schools share subdomain %q", t.Subdomain)
		}
		r.byHost[t.Host] = t
		r.bySchool[t.SchoolID] = t
		r.bySubdomain[t.Subdomain] = t
		r.all = append(r.all, t)
	}
	sort.Slice(r.all, func(i, j int) bool { return r.all[i].SchoolID < r.all[j].SchoolID })
	return r, nil
}

// Replace makes next's schools the ones r holds, in one step: a lookup that starts afterwards
// sees only next's set, one in flight finishes on the set it read. next stays as it was.
func (r *Registry) Replace(next *Registry) { r.set.Store(next.set.Load()) }

// Resolve finds the school served at host, the host[:port] a request was addressed to. A
// default port (80 or 443) matches the school whose base_url omits it, whichever scheme the
// listener speaks: behind a TLS-terminating proxy the listener sees plain http.
func (r *Registry) Resolve(host string) (*School, bool) {
	byHost := r.set.Load().byHost
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if t, ok := byHost[h]; ok {
		return t, true
	}
	if name, port, err := net.SplitHostPort(h); err == nil && (port == "80" || port == "443") {
		if strings.Contains(name, ":") {
			name = "[" + name + "]"
		}
		t, ok := byHost[name]
		return t, ok
	}
	return nil, false
}

// BySchoolID finds a school by its school id (CLI commands take --school ID).
func (r *Registry) BySchoolID(id int64) (*School, bool) {
	t, ok := r.set.Load().bySchool[id]
	return t, ok
}

// BySubdomain finds a school by its subdomain.
func (r *Registry) BySubdomain(s string) (*School, bool) {
	t, ok := r.set.Load().bySubdomain[s]
	return t, ok
}

// All returns every school ordered by school id. The slice must not be modified.
func (r *Registry) All() []*School { return r.set.Load().all }
