package conformance

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/proctorhq/proctor/school"
	"github.com/proctorhq/proctor/storage"
)

// A case checks one behaviour of a store. It receives the whole backend: a case of one store
// arranges its rows through the other where it must (the identity cases import members and
// courses through ImportSchoolData; the school-data cases need members), but it checks only the
// store its suite is named for.
type testCase struct {
	name string
	run  func(t *testing.T, s storage.Store)
}

// RunSchoolDataTests runs the suite of storage.SchoolDataStore: the school row, courses and
// curricula, progress, the Member API's and operators' data, the public catalogue, reports and
// the import. newStore must return a migrated store with no rows, isolated from every other
// store it returns (subtests run in parallel), and release it when t ends.
func RunSchoolDataTests(t *testing.T, newStore func(t *testing.T) storage.Store) {
	run(t, newStore, []testCase{
		{"Schools", testSchools},
		{"Courses", testCourses},
		{"CoursePaging", testCoursePaging},
		{"Curriculum", testCurriculum},
		{"Enrollments", testEnrollments},
		{"LectureProgress", testLectureProgress},
		{"CourseProgress", testCourseProgress},
		{"CurriculumWrites", testCurriculumWrites},
		{"MemberEnrolledCourses", testMemberEnrolledCourses},
		{"MemberCurricula", testMemberCurricula},
		{"MemberEntitlements", testMemberEntitlements},
		{"MemberConsulting", testMemberConsulting},
		{"MemberPayments", testMemberPayments},
		{"MemberNotifications", testMemberNotifications},
		{"MemberNotificationSubscriptions", testMemberNotificationSubscriptions},
		{"MemberDataNoSchool", testMemberDataNoSchool},
		{"OperatorData", testOperatorData},
		{"Catalog", testCatalog},
		{"Reports", testReports},
		{"CatalogNoSchool", testCatalogNoSchool},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"NoSchool", testNoSchool},
		{"SchoolIsolation", testSchoolIsolation},
		{"ImportRoundTrip", testImportRoundTrip},
		{"ImportIdempotent", testImportIdempotent},
		{"ImportUpdates", testImportUpdates},
		{"ImportReferencesExistingRows", testImportReferencesExistingRows},
		{"ImportAllOrNothing", testImportAllOrNothing},
		{"ImportRejects", testImportRejects},
		{"ImportProgress", testImportProgress},
		{"ImportLarge", testImportLarge},
	})
}

// RunIdentityTests runs the suite of storage.IdentityStore and of the account state declared
// beside it (account/accountstore, audit, factor, roster, mail.Outbox): members and roles,
// clients, grants and token pairs, signing keys, login sessions, transactions and the purge,
// one-time links, security events, second factors and passkeys, rosters and the mail outbox.
// newStore is as for RunSchoolDataTests; the store must implement those leaf interfaces too.
func RunIdentityTests(t *testing.T, newStore func(t *testing.T) storage.Store) {
	run(t, newStore, []testCase{
		{"CreateAndGetMember", testCreateAndGetMember},
		{"UpdateMember", testUpdateMember},
		{"Roles", testRoles},
		{"ListSchoolMembers", testListSchoolMembers},
		{"ListMemberSchools", testListMemberSchools},
		{"RolesNoSchool", testRolesNoSchool},
		{"Clients", testClients},
		{"ListClients", testListClients},
		{"UpdateClient", testUpdateClient},
		{"DeleteClient", testDeleteClient},
		{"AuthorizationCodes", testAuthorizationCodes},
		{"ConcurrentCodeUse", testConcurrentCodeUse},
		{"GrantSessions", testGrantSessions},
		{"TokenPairs", testTokenPairs},
		{"TokenPairGrant", testTokenPairGrant},
		{"RevokeGrant", testRevokeGrant},
		{"RetireReplaced", testRetireReplaced},
		{"ConcurrentFirstUse", testConcurrentFirstUse},
		{"FirstUseRetiresForks", testFirstUseRetiresForks},
		{"ConcurrentForkUse", testConcurrentForkUse},
		{"RefreshRevokeRace", testRefreshRevokeRace},
		{"FirstUseRevokeRace", testFirstUseRevokeRace},
		{"Transactions", testTransactions},
		{"SigningKeys", testSigningKeys},
		{"LoginSessions", testLoginSessions},
		{"PurgeExpired", testPurgeExpired},
		{"MailOutbox", testMailOutbox},
		{"MailLeaseExpiry", testMailLeaseExpiry},
		{"MailConcurrentClaims", testMailConcurrentClaims},
		{"MailTransactions", testMailTransactions},
		{"MailPurge", testMailPurge},
		{"OAuthSchoolIsolation", testOAuthSchoolIsolation},
		{"OAuthNoSchool", testOAuthNoSchool},
		{"AccountLinks", testAccountLinks},
		{"AccountLinkIsolation", testAccountLinkIsolation},
		{"ConcurrentConsumeLink", testConcurrentConsumeLink},
		{"MemberSessions", testMemberSessions},
		{"ConnectedApps", testConnectedApps},
		{"SecurityEvents", testSecurityEvents},
		{"SecurityEventFilters", testSecurityEventFilters},
		{"SecurityEventTransactions", testSecurityEventTransactions},
		{"SecurityEventPurge", testSecurityEventPurge},
		{"AccountPurge", testAccountPurge},
		{"Roster", testRoster},
		{"RevokeSchoolGrants", testRevokeSchoolGrants},
		{"TOTPFactor", testTOTPFactor},
		{"RecoveryCodes", testRecoveryCodes},
		{"ConcurrentFactorUse", testConcurrentFactorUse},
		{"FactorIsolation", testFactorIsolation},
		{"SessionFactor", testSessionFactor},
		{"Passkeys", testPasskeys},
		{"PasskeyCounter", testPasskeyCounter},
		{"PasskeyIsolation", testPasskeyIsolation},
		{"PasskeyChallenges", testPasskeyChallenges},
		{"PasskeyFactors", testPasskeyFactors},
	})
}

func run(t *testing.T, newStore func(t *testing.T) storage.Store, tests []testCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// Schools every test can use: call syncSchools first.
var (
	schoolA = &school.School{SchoolID: 1, Subdomain: "a", Name: "School A", Origin: "https://a.example.test", Host: "a.example.test"}
	schoolB = &school.School{SchoolID: 2, Subdomain: "b", Name: "School B", Origin: "https://b.example.test", Host: "b.example.test"}
)

// inSchool returns a context carrying the school, ended with the test.
func inSchool(t *testing.T, tn *school.School) context.Context {
	return school.NewContext(t.Context(), tn)
}

// syncSchools creates the rows of schools A and B.
func syncSchools(t *testing.T, s storage.Store) (ctxA, ctxB context.Context) {
	t.Helper()
	for _, tn := range []*school.School{schoolA, schoolB} {
		if err := s.SyncSchool(t.Context(), tn.SchoolID, tn.Subdomain, tn.Name); err != nil {
			t.Fatalf("SyncSchool(%d): %v", tn.SchoolID, err)
		}
	}
	return inSchool(t, schoolA), inSchool(t, schoolB)
}

// withFullSchool creates schools A and B and imports FullSchoolData at A; it returns the data
// imported.
func withFullSchool(t *testing.T, s storage.Store) (ctxA, ctxB context.Context, data *storage.SchoolData) {
	t.Helper()
	ctxA, ctxB = syncSchools(t, s)
	data = FullSchoolData()
	mustImport(t, s, ctxA, data)
	return ctxA, ctxB, data
}

// courseBySlug reads a course of the context's school and fails the test now if it cannot.
func courseBySlug(t *testing.T, s storage.Store, ctx context.Context, slug string) storage.Course {
	t.Helper()
	c, err := s.GetCourseBySlug(ctx, slug)
	must(t, "GetCourseBySlug "+slug, err)
	return c
}

// mustImport imports data and fails the test on error.
func mustImport(t *testing.T, s storage.Store, ctx context.Context, data *storage.SchoolData) storage.ImportStats {
	t.Helper()
	stats, err := s.ImportSchoolData(ctx, data, storage.ImportOptions{})
	if err != nil {
		t.Fatalf("ImportSchoolData: %v", err)
	}
	return stats
}

// wantErr fails unless errors.Is(err, target).
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}

// must fails the test now on err.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// at returns a fixed UTC time with microseconds, the precision every backend keeps.
func at(day, hour int) time.Time {
	return time.Date(2024, time.March, day, hour, 30, 15, 123456000, time.UTC)
}

func ptr[T any](v T) *T { return &v }

// narrow is s as one of the narrow interfaces the flows beside storage.Store use (accountstore.Store,
// roster.Store, factor.Store...): a backend keeping those tables implements them too, and a
// store that does not fails the test now.
func narrow[T any](t *testing.T, s storage.Store) T {
	t.Helper()
	v, ok := s.(T)
	if !ok {
		t.Fatalf("%T does not implement %v", s, reflect.TypeFor[T]())
	}
	return v
}

// wantEqual fails if got and want differ, comparing times as instants at microsecond precision.
func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := diff("", reflect.ValueOf(got), reflect.ValueOf(want)); d != "" {
		t.Errorf("%s: %s", what, d)
	}
}

var timeType = reflect.TypeOf(time.Time{})

// diff describes the first difference between a and b, or returns "".
func diff(path string, a, b reflect.Value) string {
	if !a.IsValid() || !b.IsValid() {
		if a.IsValid() != b.IsValid() {
			return fmt.Sprintf("%s: got %v, want %v", path, a, b)
		}
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: got type %s, want %s", path, a.Type(), b.Type())
	}
	if a.Type() == timeType {
		ta := a.Interface().(time.Time).Truncate(time.Microsecond)
		tb := b.Interface().(time.Time).Truncate(time.Microsecond)
		if !ta.Equal(tb) {
			return fmt.Sprintf("%s: got %s, want %s", path, ta, tb)
		}
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: got %v, want %v", path, a, b)
			}
			return ""
		}
		return diff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if d := diff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: got %d elements, want %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: got %d entries, want %d", path, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			if d := diff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: got %#v, want %#v", path, a.Interface(), b.Interface())
	}
	return ""
}
