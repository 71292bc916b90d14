#pragma once
// A ports::Progress that keeps every line and block, for assertions.

#include "ports/clock.hpp"
#include "ports/progress.hpp"

#include <mutex>
#include <string>
#include <vector>

namespace perfsweep::test {

/// Records progress output in memory (thread-safe).
class RecordingProgress final : public ports::Progress {
public:
    /// Keep `text`.
    void line(std::string_view text) override {
        std::lock_guard<std::mutex> lock(m_mutex);
        lines.emplace_back(text);
    }
    /// Keep the block's title and text.
    void untrusted_block(std::string_view title, std::string_view text) override {
        std::lock_guard<std::mutex> lock(m_mutex);
        blocks.emplace_back(std::string(title) + "\n" + std::string(text));
    }
    std::vector<std::string> lines;  ///< every line, in order
    std::vector<std::string> blocks; ///< title + "\n" + text per block

private:
    std::mutex m_mutex;
};

} // namespace perfsweep::test
