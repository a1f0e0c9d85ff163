/*
 * Copyright 2026 gr-gpudsp authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_GPUDSP_API_H
#define INCLUDED_GPUDSP_API_H

#include <gnuradio/attributes.h>

#ifdef gnuradio_gpudsp_EXPORTS
#define GPUDSP_API __GR_ATTR_EXPORT
#else
#define GPUDSP_API __GR_ATTR_IMPORT
#endif

#endif /* INCLUDED_GPUDSP_API_H */
