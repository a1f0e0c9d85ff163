/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_RUNTIME_DATA_DIR_H
#define INCLUDED_GPUDSP_RUNTIME_DATA_DIR_H

#include <gnuradio/gpudsp/api.h>
#include <string>

namespace gr {
namespace gpudsp {
namespace runtime {

/*!
 * \brief The folder holding the module's data (gnss/ code tables, ldpc/
 * base graphs): $GPUDSP_DATA_DIR when set, else the install prefix's
 * share/gr-gpudsp, else the source tree's data/ (tests before
 * installation).
 */
GPUDSP_API std::string data_dir();

} // namespace runtime
} // namespace gpudsp
} // namespace gr

#endif /* INCLUDED_GPUDSP_RUNTIME_DATA_DIR_H */
