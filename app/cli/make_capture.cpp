#include "app/cli/make_capture.h"

#include "app/cli/compare_options.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace gapscope::cli {

std::optional<int> makeCapture(const CaptureRequest& request) {
    std::string why;
    auto command = exporterCommand(why);
    if (command.empty())
        return compareFailed("--make-capture: " + why);
    std::error_code ec;
    if (std::filesystem::exists(request.output, ec))
        return compareFailed("--make-capture: " + request.output +
                             " exists but is not a capture Gapscope can read; it is not replaced");
    const auto args = forSessionArguments(request);
    command.insert(command.end(), args.begin(), args.end());
    std::string shown;
    for (const auto& word : command)
        shown += (shown.empty() ? "" : " ") + word;
    std::cerr << "gapscope-cli compare: making the reference capture: " << shown << "\n";

    std::vector<char*> argv;
    for (auto& word : command)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, 2, 1); // the exporter's prints never reach a report on stdout
    pid_t child = 0;
    const int spawned = posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return compareFailed("--make-capture: cannot start " + command.front() + ": " +
                             std::strerror(spawned));
    int status = 0;
    while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            return compareFailed(std::string("--make-capture: waiting for the exporter: ") +
                                 std::strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return std::nullopt;
    return compareFailed("--make-capture: the exporter failed (" +
                         (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                            : "signal " + std::to_string(WTERMSIG(status))) +
                         "): its message is above");
}

} // namespace gapscope::cli
