// Package conformance is the judge of `python -m godlpack check`: it grades
// what another library's DLPack did, an export (JudgeExport) or an import
// (JudgeImport), by the functions godlpack's own exchanges run (core's
// PlanExport, DescribeVersioned, DescribeLegacy, CopyInto), and lists the
// checks with their levels (ExportChecks, ImportChecks: the spec's MUST and
// SHOULD, and godlpack's advice). The Python side gathers the evidence and
// holds no rule.
//
// It sits above core and imports it; core does not import it. The CPython
// skin reaches it through core's one operation path (GD_OP_JUDGE_EXPORT),
// where core calls core.Judge, which this package sets as it initialises:
// an extension that links it (pyext imports it) has a judge.
package conformance
