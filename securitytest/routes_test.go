package securitytest

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/proctorhq/proctor/resource"
	"github.com/proctorhq/proctor/server"
	"github.com/proctorhq/proctor/server/servertest"
)

// route is one route of a listener: its methods ("*" when it matches any) and path template.
type route struct {
	methods []string
	path    string
}

func (r route) key() string { return strings.Join(r.methods, ",") + " " + r.path }

// listed turns the server's route list into the suite's.
func listed(rs []server.Route) []route {
	out := make([]route, 0, len(rs))
	for _, r := range rs {
		methods := r.Methods
		if methods == nil {
			methods = []string{"*"}
		}
		out = append(out, route{methods: methods, path: r.Path})
	}
	return out
}

// sweptRoutes are the routes the sweep covers, as the server lists them (Server.Routes): the
// public and internal listeners' of the server under test, which mounts everything a full
// Proctor does (its store keeps every table; internal.api_key is set), and on the internal
// listener also the demo's mailbox, which that server lacks (the sweep checks it answers 404
// there): a server built the same with a mailbox (sibling) lists it.
func sweptRoutes(t testing.TB, e *servertest.Env) (public, internal []route) {
	t.Helper()
	pub, _ := e.Server.Routes()
	_, in := sibling(t, e, func(d *server.Deps) { d.MailboxHandler = http.NotFoundHandler() }).Routes()
	return listed(pub), listed(in)
}

// sibling builds a server on e's configuration, schools and store, with change applied to its
// Deps. Its routes are what the tests read; it serves on loopback listeners of its own, which
// nothing calls, until the test ends, so that what server.New opened (a Redis client when
// redis.url is set) is closed by Serve's shutdown: the server has no other way to release it.
func sibling(t testing.TB, e *servertest.Env, change func(*server.Deps)) *server.Server {
	t.Helper()
	d := server.Deps{Config: e.Config, Schools: e.Registry, Store: e.Store, PurgeInterval: -1}
	change(&d)
	s, err := server.New(d)
	if err != nil {
		t.Fatal(err)
	}
	servertest.Serve(t, s, servertest.Loopback(t), servertest.Loopback(t))
	return s
}

// TestMemberAPIRoutesAreSwept: a Member API process (`proctor serve --only member-api`) serves
// only routes of the full server, which the sweep covers; it is not swept itself.
func TestMemberAPIRoutesAreSwept(t *testing.T) {
	e := newEnv(t, "sqlite")
	full, _ := sweptRoutes(t, e)
	memberAPI, _ := sibling(t, e, func(d *server.Deps) {
		d.Only = server.OnlyMemberAPI
		d.Config.MemberAPI.IntrospectionURL = e.InternalURL + resource.IntrospectPath
		d.Config.MemberAPI.APIKey = d.Config.Internal.APIKey
	}).Routes()
	if len(memberAPI) == 0 {
		t.Fatal("the Member API process lists no public route")
	}
	for _, rt := range listed(memberAPI) {
		if !slices.ContainsFunc(full, func(f route) bool { return f.key() == rt.key() }) {
			t.Errorf("the Member API process serves %s, which the full server does not: the sweep does not cover it", rt.key())
		}
	}
}

// mountedInServer are the calls of package server that put routes on a router, by function.
// The routes themselves come from the server (sweptRoutes), but a server lists only what its
// settings mount; this list remains so that a call added under a condition none of the suite's
// servers meets (a new setting, a new kind of process) fails TestMountPointsMatchServer instead
// of going unswept. Each call below is mounted by one of them: mountAll's and internalHandler's
// by the server under test (the mailbox by sweptRoutes's second server), mountMemberAPI's by
// TestMemberAPIRoutesAreSwept's. startingHandler serves before a Server exists; package server
// checks that its routes are among the internal listener's.
var mountedInServer = map[string][]string{
	"mountAll": {
		"discovery.New(...).Mount",
		"r.Handle(endpoint.JWKS)",
		"login.Mount",
		"pagesMFA.Mount",
		"acct.Mount",
		"pk.Mount",
		"admin.New(...).Mount",
		"authz.New(...).Mount",
		"membergraphql.New(...).Mount",
		"mcpendpoint.New(...).Mount",
		"operator.New(...).Mount",
	},
	"mountMemberAPI": {
		"discovery.New(...).MountResourceMetadata",
		"membergraphql.New(...).Mount",
	},
	"internalHandler": {
		`r.HandleFunc("/healthz")`,
		`r.HandleFunc("/readyz")`,
		`r.Handle("/metrics")`,
		"r.Handle(resource.IntrospectPath)",
		"r.PathPrefix(pprofPrefix)",
		`r.PathPrefix("/mail")`,
	},
	"startingHandler": {
		`r.HandleFunc("/healthz")`,
		`r.HandleFunc("/readyz")`,
	},
}

// routingCalls are the method names that put routes on a router.
var routingCalls = map[string]bool{
	"Mount": true, "MountResourceMetadata": true, "Handle": true, "HandleFunc": true,
	"Path": true, "PathPrefix": true, "NewRoute": true, "Host": true, "Subrouter": true,
}

// serverSources parses package server's non-test files.
func serverSources(t testing.TB) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join("..", "server", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("package server's sources: %v", err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// exprString prints an expression as source.
func exprString(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	_ = printer.Fprint(&b, fset, e)
	return b.String()
}

// routingCallName names a routing call the way mountedInServer does.
func routingCallName(fset *token.FileSet, call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !routingCalls[sel.Sel.Name] {
		return "", false
	}
	recv := exprString(fset, sel.X)
	if c, ok := sel.X.(*ast.CallExpr); ok {
		recv = exprString(fset, c.Fun) + "(...)"
	}
	name := recv + "." + sel.Sel.Name
	if strings.HasPrefix(sel.Sel.Name, "Mount") {
		return name, true
	}
	if len(call.Args) > 0 {
		return name + "(" + exprString(fset, call.Args[0]) + ")", true
	}
	return name + "()", true
}

// TestMountPointsMatchServer: every call in package server that adds routes is one the suite
// knows (mountedInServer), so that a route is never mounted where no server the sweep builds
// mounts it.
func TestMountPointsMatchServer(t *testing.T) {
	fset, files := serverSources(t)
	got := map[string][]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if name, ok := routingCallName(fset, call); ok {
						got[fn.Name.Name] = append(got[fn.Name.Name], name)
					}
				}
				return true
			})
		}
	}
	for fn, calls := range got {
		sort.Strings(calls)
		want := slices.Clone(mountedInServer[fn])
		sort.Strings(want)
		if !slices.Equal(calls, want) {
			t.Errorf("server.%s routes with %q; the suite knows %q: make sure a server of sweptRoutes or TestMemberAPIRoutesAreSwept mounts it, then update mountedInServer", fn, calls, want)
		}
	}
	for fn := range mountedInServer {
		if _, ok := got[fn]; !ok {
			t.Errorf("server.%s no longer adds routes; update mountedInServer", fn)
		}
	}
}
