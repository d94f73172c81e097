# lit configuration for shardc: FileCheck tests of passes and diagnostics, and
# end-to-end tests of the driver.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "shardc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
# test/gpu holds programs and artifacts for the GPU suite, not lit tests.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "gpu"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.shardc_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.shardc_tools_dir, append_path=True)

tool_dirs = [config.shardc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["shardc-opt", "shardc", "shardc-mlp", "shardc-gpt"], tool_dirs)
config.substitutions.append(("%python", config.numpy_python))

# PyTorch and the peers' reference module (../shared/bench/tiny_transformer.py)
# for the oracles that need them; tools/bootstrap.sh test installs
# python3-torch. Without them those tests report UNSUPPORTED.
import subprocess

peer_module = os.path.join(os.path.dirname(config.test_source_root), "..", "shared", "bench",
                           "tiny_transformer.py")
if os.path.exists(peer_module) and subprocess.run(
        [config.numpy_python, "-c", "import torch"], capture_output=True).returncode == 0:
    config.available_features.add("torch")
config.substitutions.append(("%shardc_obj_root", config.shardc_obj_root))
config.substitutions.append(("%shardc_src_root", os.path.dirname(config.test_source_root)))

# The driver's compile cache lives in the build tree, not the user's home.
config.environment["SHARDC_CACHE_DIR"] = os.path.join(config.test_exec_root, "shardc-cache")

# Machines without the NVIDIA driver (CI, most developer machines): the CUDA
# backend's error path is what runs there.
try:
    import ctypes

    ctypes.CDLL("libcuda.so.1")
except OSError:
    config.available_features.add("no-cuda-driver")

# A small tmpfs in a private mount namespace (unshare -rm, no root needed
# where user namespaces are allowed): a disk that fills, for the fault tests.
# `%tmpfs_run DIR KB COMMAND...` runs COMMAND with DIR mounted so.
import tempfile

try:
    with tempfile.TemporaryDirectory() as probe:
        if subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs " + probe],
                          capture_output=True, timeout=30).returncode == 0:
            config.available_features.add("tmpfs")
except (OSError, subprocess.SubprocessError):
    pass
config.substitutions.append(
    ("%tmpfs_run", "sh " + os.path.join(config.test_source_root, "models", "Inputs", "tmpfs_run.sh")))

# Builds with MPI: `%mpirun N` launches N processes (oversubscribed: CI has 2
# cores; allowed as root, as CI runs), with a session directory of the
# test's own, since tests run side by side.
if getattr(config, "shardc_mpiexec", ""):
    config.available_features.add("mpi")
    isolated = os.path.join(config.test_source_root, "models", "Inputs", "mpirun_isolated.sh")
    config.substitutions.append(
        ("%mpirun", "sh " + isolated + " %t.mpi " + config.shardc_mpiexec + " -np"))
    for var, value in [("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                       ("OMPI_MCA_rmaps_base_oversubscribe", "1")]:
        config.environment[var] = value
