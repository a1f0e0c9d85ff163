/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/gpudsp/runtime/data_dir.h>
#include <cstdlib>
#include <fstream>

namespace gr {
namespace gpudsp {
namespace runtime {

std::string data_dir()
{
    if (const char* env = std::getenv("GPUDSP_DATA_DIR"))
        if (*env)
            return env;
    // The installed folder when it holds the data, else the source tree's.
    for (const char* dir : { GPUDSP_INSTALLED_DATA_DIR, GPUDSP_SOURCE_DATA_DIR })
        if (std::ifstream(std::string(dir) + "/gnss/codes_gps_l1ca.bin").good())
            return dir;
    return GPUDSP_INSTALLED_DATA_DIR;
}

} // namespace runtime
} // namespace gpudsp
} // namespace gr
