#include "core/evidence.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <cmath>

namespace perfsweep::core {

namespace {

// One SHA abbreviates the other (both at least 7 hex digits), or they are equal.
bool same_commit(const std::string& a, const std::string& b) {
    if (a == b)
        return !a.empty();
    const auto& shorter = a.size() < b.size() ? a : b;
    const auto& longer = a.size() < b.size() ? b : a;
    return shorter.size() >= 7 && longer.compare(0, shorter.size(), shorter) == 0;
}

bool same_image(const EvidenceKey& a, const EvidenceKey& b) {
    if (!a.digest.empty() && !b.digest.empty())
        return a.digest == b.digest;
    return a.image == b.image;
}

} // namespace

EvidenceKey evidence_key(const Measurement& m) {
    return {m.commits,   m.recipe, m.image, m.digest, fingerprint_key(m.runner),
            m.benchmark, m.metric};
}

EvidenceMatch match_evidence(const EvidenceKey& want, const EvidenceKey& have) {
    if (want.commits.empty() || want.runner != have.runner || want.benchmark != have.benchmark ||
        want.metric != have.metric)
        return EvidenceMatch::none;
    for (const auto& [repo, sha] : want.commits) {
        const auto it = have.commits.find(repo);
        if (it == have.commits.end() || !same_commit(sha, it->second))
            return EvidenceMatch::none;
    }
    const bool same_build = want.recipe == have.recipe && same_image(want, have) &&
                            have.commits.size() == want.commits.size();
    return same_build ? EvidenceMatch::exact : EvidenceMatch::same_sources;
}

Evidence find_evidence(const std::vector<Measurement>& records, const EvidenceKey& want,
                       const std::vector<std::string>& admissible_images, bool pass_fail) {
    Evidence e;
    for (const auto& m : records) {
        if (m.status != Status::ok || m.values.empty() || m.exit_codes.empty() == pass_fail)
            continue;
        switch (match_evidence(want, evidence_key(m))) {
        case EvidenceMatch::none:
            break;
        case EvidenceMatch::exact:
            e.exact.insert(e.exact.end(), m.values.begin(), m.values.end());
            break;
        case EvidenceMatch::same_sources:
            if (std::find(admissible_images.begin(), admissible_images.end(), m.image) ==
                admissible_images.end())
                break;
            e.same_sources.insert(e.same_sources.end(), m.values.begin(), m.values.end());
            if (std::find(e.labels.begin(), e.labels.end(), m.label) == e.labels.end())
                e.labels.push_back(m.label);
            break;
        }
    }
    return e;
}

bool evidence_confirmed(const std::vector<double>& evidence, const std::vector<double>& fresh,
                        double step, double alpha) {
    if (evidence.empty() || fresh.empty())
        return false;
    const auto e = summarize(evidence);
    const double off = std::fabs(median(fresh) - e.median);
    if (off <= std::fabs(step) / 4)
        return true;
    if (e.n < 2 || e.stddev <= 0)
        return off == 0;
    // Student's t prediction interval of the fresh runs' mean around the evidence's mean.
    const double k = static_cast<double>(fresh.size());
    const double se = e.stddev * std::sqrt(1.0 / k + 1.0 / static_cast<double>(e.n));
    const double t = std::fabs(summarize(fresh).mean - e.mean) / se;
    return student_t_two_sided_p(t, static_cast<double>(e.n - 1)) >= alpha;
}

} // namespace perfsweep::core
