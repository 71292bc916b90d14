#pragma once
// Option resolution of the commands that read and write data and talk to GitHub (record, import,
// detect, report, comment, plan, merge, issue-request): see app/options.hpp. The demo resolves
// its own options next to it (app/demo/demo.hpp).

#include "app/comment.hpp"
#include "app/compare.hpp"
#include "app/detect.hpp"
#include "app/fanout.hpp"
#include "app/import.hpp"
#include "app/issue_request.hpp"
#include "app/option_values.hpp"
#include "app/options.hpp"
#include "app/record.hpp"
#include "app/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// `perfsweep record`.
struct RecordCommand {
    RecordRequest request;
    bool json = false;
};
/// Resolve `record`.
RecordCommand resolve_record(const OptionValues& values);

/// `perfsweep import`.
struct ImportCommand {
    ImportRequest request;
    bool json = false;
};
/// Resolve `import`.
ImportCommand resolve_import(const OptionValues& values);

/// `perfsweep detect`.
struct DetectCommand {
    DetectRequest request;
    bool json = false;
};
/// Resolve `detect` (a missing or empty history is inconclusive, not an error).
DetectCommand resolve_detect(const OptionValues& values);

/// Resolve `report`.
ReportRequest resolve_report(const OptionValues& values);

/// `perfsweep comment`.
struct CommentCommand {
    CommentRequest request; ///< body left empty: read from body_file by the caller
    std::string body_file;
    std::string token_env;
};
/// Resolve `comment`.
CommentCommand resolve_comment(const OptionValues& values, const CommentContext& context);

/// `perfsweep plan`.
struct PlanCommand {
    PlanOptions options;
    std::string history;
};
/// Resolve `plan`.
PlanCommand resolve_plan(const OptionValues& values);

/// `perfsweep merge`.
struct MergeCommand {
    MergeOptions options;
    std::vector<std::string> paths; ///< result files or directories
    std::string history;
    bool json = false;
};
/// Resolve `merge`.
MergeCommand resolve_merge(const OptionValues& values);

/// `perfsweep compare`.
struct CompareCommand {
    CompareRequest request;
    bool report_only = false;
    std::optional<CommentRequest> comment; ///< --comment: where (the body is the report)
    std::string token_env;
    bool json = false;
};
/// Resolve `compare` (the base's runner is the head's with --base-workdir / --base-test).
CompareCommand resolve_compare(const OptionValues& values, const CommentContext& context);

/// `perfsweep issue-request`.
struct IssueRequestCommand {
    IssueRequestOptions options; ///< repo empty: $GITHUB_REPOSITORY, else the event's
    std::string event;           ///< payload file ("" = $GITHUB_EVENT_PATH)
    std::string event_name;      ///< "" = $GITHUB_EVENT_NAME
    std::string token_env;
};
/// Resolve `issue-request`.
IssueRequestCommand resolve_issue_request(const OptionValues& values);

} // namespace perfsweep::app
