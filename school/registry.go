package school

import (
	"fmt"
	"net"
	"sort"
	"strings"
)

// Registry holds every configured school and finds them by host, school id and subdomain.
type Registry struct {
	byHost      map[string]*School
	bySchool    map[int64]*School
	bySubdomain map[string]*School
	all         []*School
}

// NewRegistry indexes schools. Duplicate school ids, subdomains or hosts are an error (config
// validation reports them first, with file names; this is the last line of defence).
func NewRegistry(schools []*School) (*Registry, error) {
	r := &Registry{
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

// Resolve finds the school served at host, the host[:port] a request was addressed to. A
// default port (80 or 443) matches the school whose base_url omits it, whichever scheme the
// listener speaks: behind a TLS-terminating proxy the listener sees plain http.
func (r *Registry) Resolve(host string) (*School, bool) {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if t, ok := r.byHost[h]; ok {
		return t, true
	}
	if name, port, err := net.SplitHostPort(h); err == nil && (port == "80" || port == "443") {
		if strings.Contains(name, ":") {
			name = "[" + name + "]"
		}
		t, ok := r.byHost[name]
		return t, ok
	}
	return nil, false
}

// BySchoolID finds a school by its school id (CLI commands take --school ID).
func (r *Registry) BySchoolID(id int64) (*School, bool) {
	t, ok := r.bySchool[id]
	return t, ok
}

// BySubdomain finds a school by its subdomain.
func (r *Registry) BySubdomain(s string) (*School, bool) {
	t, ok := r.bySubdomain[s]
	return t, ok
}

// All returns every school ordered by school id. The slice must not be modified.
func (r *Registry) All() []*School { return r.all }
